"""One session from several threads at once: the GIL is released while advisor works, and the
answers are those of the same calls made one after another."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import advisor
from conftest import scenarios


def test_one_session_from_many_threads_answers_as_serially():
    session = advisor.Session(set=["vm-cached-throughput-cap.cap_ratio=90%"])
    cases = scenarios()
    serial = [session.analyze(c, topology=[t]) for _, c, t in cases]
    jobs = [(i, c, t) for i, (_, c, t) in enumerate(cases)] * 3
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda job: (job[0], session.analyze(job[1], topology=[job[2]])), jobs))
    for i, report in answers:
        assert report == serial[i], cases[i][0]


def test_sessions_with_different_settings_side_by_side():
    # Each thread's session keeps its own rules' settings, whatever the others use.
    cases = scenarios()
    strict = advisor.Session(set={"vm-cached-throughput-cap.cap_ratio": "50%"})
    plain = advisor.Session()
    expected = {
        (kind, i): s.analyze(c, topology=[t])
        for kind, s in (("strict", strict), ("plain", plain))
        for i, (_, c, t) in enumerate(cases)
    }
    assert any(expected[("strict", i)] != expected[("plain", i)] for i in range(len(cases))), (
        "the setting must change some report"
    )

    def run(job):
        kind, i = job
        s = strict if kind == "strict" else plain
        _, c, t = cases[i]
        return job, s.analyze(c, topology=[t])

    jobs = list(expected) * 2
    with ThreadPoolExecutor(max_workers=8) as pool:
        for job, report in pool.map(run, jobs):
            assert report == expected[job], job


def test_the_gil_is_released_while_advisor_works(long_capture):
    # While analyses run in one thread, another keeps running Python. Were the GIL held,
    # the other thread could run only between the calls, never inside one.
    session = advisor.Session()
    ticks = []
    calls = []
    started = threading.Event()

    def work():
        started.set()
        first = time.perf_counter()
        # At least a second of calls (one is enough in a debug build, several in release).
        while not calls or time.perf_counter() - first < 1.0:
            start = time.perf_counter()
            report = session.analyze([str(long_capture)], vm="Standard_DS13_v2")
            calls.append((start, time.perf_counter(), report["inputs"][0]["samples"]))

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    busy = covered = 0.0
    for start, end, samples in calls:
        assert samples > 30000
        inside = [t for t in ticks if start < t < end]
        busy += end - start
        covered += inside[-1] - inside[0] if len(inside) > 1 else 0.0
    # Ticks all through each call, from soon after its start to near its end.
    assert covered > 0.7 * busy, (covered, busy, len(calls), len(ticks))
