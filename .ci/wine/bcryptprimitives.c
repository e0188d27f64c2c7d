/*
 * A stand-in for Windows' bcryptprimitives.dll under Wine 8.0 (Debian 12), which lacks it.
 * Rust's standard library (1.78 and later) takes its random bytes from ProcessPrng there,
 * so a Windows build of advisor does not start under that Wine without it. CI builds this
 * file with mingw-w64 into the Wine prefix that runs the Windows smoke test; it is never
 * part of what advisor ships (real Windows has the DLL).
 *
 * ProcessPrng: https://learn.microsoft.com/windows/win32/seccng/processprng
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has:
 * https://learn.microsoft.com/windows/win32/api/ntsecapi/nf-ntsecapi-rtlgenrandom
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
