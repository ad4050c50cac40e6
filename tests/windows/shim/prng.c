/*
 * bcryptprimitives.dll for wine 8, in the test harness only (never in a
 * release): Go's runtime takes its randomness from ProcessPrng, which
 * Windows 10 and later export and wine 8 does not. This one answers it
 * with advapi32's RtlGenRandom (exported as SystemFunction036), which wine
 * has. Built by tests/windows (main_test.go) with
 *   x86_64-w64-mingw32-gcc -shared -O2 -s -o bcryptprimitives.dll prng.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
