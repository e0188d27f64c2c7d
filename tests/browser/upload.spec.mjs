// Drives Debian's chromium through the upload page of a running `advisor serve`, as a
// person would: pick files, fill the form, submit, read the report.
//
//   node tests/browser/upload.spec.mjs http://127.0.0.1:PORT
//
// With ADVISOR_TOKEN set (a server started with --tokens), a browser without credentials
// must be refused, and the person types the token once, as the password the browser asks
// for (playwright's httpCredentials), for the whole session.
//
// Exit 0 when every check passed; 1 with the reason otherwise. tests/it/serve.rs runs it.
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const base = process.argv[2];
if (!base || !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/.test(base)) {
  console.error('usage: node upload.spec.mjs http://127.0.0.1:PORT (loopback only)');
  process.exit(2);
}
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scenario = path.join(repo, 'fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30');
const capture = path.join(scenario, 'capture.csv');
const topology = path.join(scenario, 'topology.toml');

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
  console.log(`ok - ${what}`);
}

const scratch = mkdtempSync(path.join(tmpdir(), 'advisor-browser-'));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  timeout: 60_000,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
let failed = false;
try {
  const token = process.env.ADVISOR_TOKEN;
  if (token) {
    const anonymous = await browser.newContext();
    const refused = await anonymous.request.get(base);
    check(refused.status() === 401, `without the token the page is refused (${refused.status()})`);
    const challenges = refused.headers()['www-authenticate'] || '';
    check(/Basic realm="advisor"/.test(challenges), 'the browser is asked for credentials');
    // A browser that has none to give cannot open the page (headless Chromium ends the
    // navigation instead of showing a dialog).
    const opened = await (await anonymous.newPage()).goto(base).then(
      (r) => r.status(),
      (e) => e.message.split('\n')[0],
    );
    check(opened !== 200, `the page does not open without credentials (${opened})`);
    await anonymous.close();
  }
  const context = await browser.newContext(
    token ? { httpCredentials: { username: 'support', password: token } } : {},
  );
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);

  // 1. Captures and a topology file; the report opens as a page.
  await page.goto(base);
  check((await page.title()).includes('analyze storage captures'), 'the upload page opens');
  await page.setInputFiles('#capture', capture);
  await page.setInputFiles('#topology', topology);
  await page.selectOption('#format', 'html');
  check((await page.textContent('#sizes')).includes('MiB'), 'the page shows the selected size');
  await Promise.all([page.waitForURL('**/api/v1/analyze'), page.click('#submit')]);
  const verdict = await page.textContent('#verdict');
  check(/cached/i.test(verdict), `the report's verdict names the cached cap: "${verdict.trim()}"`);
  const critical = await page.locator('article.finding.sev-critical').count();
  check(critical >= 1, `the report shows ${critical} critical finding(s)`);
  const body = await page.textContent('body');
  check(body.includes('vm-cached-throughput-cap'), 'the finding names its rule');
  check(body.includes('Standard_DS13_v2'), 'the report names the VM size');
  // The timeline: a strip per cap finding above the charts, laid out with a real size.
  const strips = await page.locator('#timeline svg.timeline').count();
  check(strips >= 1, `the report draws ${strips} timeline strip(s)`);
  const mark = await page.locator('#timeline svg.timeline rect.episode').first().boundingBox();
  check(
    mark !== null && mark.width > 0 && mark.height > 0,
    `an episode is drawn on the timeline (${mark ? Math.round(mark.width) : 0} px wide)`,
  );
  const below = await page.locator('#targets').boundingBox();
  const strip = await page.locator('#timeline').boundingBox();
  check(strip !== null && below !== null && strip.y < below.y, 'the timeline sits above the charts');

  // 2. A VM size and the disks table instead of a file, with a row added by the script.
  await page.goto(base);
  await page.setInputFiles('#capture', capture);
  await page.fill('#vm', 'Standard_DS13_v2');
  await page.fill('#temp_disk', 'D:');
  const rowsBefore = await page.locator('#disks tbody tr').count();
  await page.click('#add-disk');
  const rows = page.locator('#disks tbody tr');
  check((await rows.count()) === rowsBefore + 1, 'Add a disk adds a row');
  await rows.nth(0).locator('input[name=disk_name]').fill('C:');
  await rows.nth(0).locator('input[name=disk_sku]').fill('P10');
  await rows.nth(0).locator('select[name=disk_role]').selectOption('os');
  const last = rows.nth(rowsBefore);
  await last.locator('input[name=disk_name]').fill('E:');
  await last.locator('input[name=disk_sku]').fill('P30');
  await last.locator('select[name=disk_cache]').selectOption('ReadOnly');
  await Promise.all([page.waitForURL('**/api/v1/analyze'), page.click('#submit')]);
  const text2 = await page.textContent('body');
  const critical2 = await page.locator('article.finding.sev-critical').count();
  check(
    critical2 >= 1 && text2.includes('vm-cached-throughput-cap'),
    'the disks table gives the same critical finding',
  );

  // 3. A file that is not a capture: the page again, with the reason.
  const junk = path.join(scratch, 'screenshot.png');
  writeFileSync(junk, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0xfe]));
  await page.goto(base);
  await page.setInputFiles('#capture', junk);
  const [resp] = await Promise.all([
    page.waitForResponse('**/api/v1/analyze'),
    page.click('#submit'),
  ]);
  check(resp.status() === 422, `a non-capture is answered ${resp.status()}`);
  await page.waitForSelector('#error');
  const err = await page.textContent('#error');
  check(err.includes('screenshot.png'), `the page says what is wrong: "${err.trim().slice(0, 90)}..."`);
  check((await page.locator('#upload').count()) === 1, 'the form is there to try again');
} catch (e) {
  failed = true;
  console.error(`not ok - ${e.message}`);
} finally {
  await browser.close();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
