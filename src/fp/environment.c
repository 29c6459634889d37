/* The host floating-point environment check.  The host model is integer
 * arithmetic, but the campaign and the MPFR tests also use host floats, and a
 * process started with flush-to-zero or a directed rounding mode would make
 * them lie. */
#include <fenv.h>
#include "fp.h"
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

const char *fp_check_host_environment(void)
{
    if (fegetround() != FE_TONEAREST)
        return "the host rounding mode is not round-to-nearest";
#if defined(__x86_64__) || defined(__i386__)
    unsigned csr = _mm_getcsr();
    if (csr & 0x8000)
        return "the host has flush-to-zero (MXCSR.FTZ) set";
    if (csr & 0x0040)
        return "the host has denormals-are-zero (MXCSR.DAZ) set";
#endif
    volatile float tiny = 1e-40f;  /* a subnormal: must survive arithmetic */
    if (tiny * 1.0f == 0.0f)
        return "the host flushes subnormal floats";
    return 0;
}
