/* Hand-written C + OpenMP reference kernels for the pcompute benchmarks.
 *
 * Built by benchmarks/reference/__init__.py with
 *     gcc -O3 -march=native -fopenmp -shared -fPIC
 * and called through ctypes on numpy arrays.  Every kernel takes the number
 * of threads `nt` (0: OpenMP's default).  Loops below SERIAL_BELOW items run
 * on one thread, as pcompute's do.  Each kernel has a `time_*` twin that runs
 * it `reps` x `inner` times and stores the seconds per call of each rep
 * (omp_get_wtime), so the ctypes call overhead can be left out.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#define SERIAL_BELOW 2048
#define MAX_THREADS 256

static int threads(int nt) { return nt > 0 ? nt : omp_get_max_threads(); }

/* ------------------------------------------------------------------ axpy */
void axpy_f64(int64_t n, double a, const double *restrict x, double *restrict y, int nt)
{
    #pragma omp parallel for simd schedule(static) num_threads(threads(nt)) if(n >= SERIAL_BELOW)
    for (int64_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* ------------------------------------------------------------------ sums */
double sum_f64(int64_t n, const double *restrict x, int nt)
{
    double s = 0.0;
    #pragma omp parallel for simd reduction(+:s) schedule(static) num_threads(threads(nt)) if(n >= SERIAL_BELOW)
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* float32 data, double accumulator (float accumulators lose digits at 1e7). */
double sum_f32(int64_t n, const float *restrict x, int nt)
{
    double s = 0.0;
    #pragma omp parallel for simd reduction(+:s) schedule(static) num_threads(threads(nt)) if(n >= SERIAL_BELOW)
    for (int64_t i = 0; i < n; i++)
        s += (double)x[i];
    return s;
}

int64_t sum_i32(int64_t n, const int32_t *restrict x, int nt)
{
    int64_t s = 0;
    #pragma omp parallel for simd reduction(+:s) schedule(static) num_threads(threads(nt)) if(n >= SERIAL_BELOW)
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* ------------------------------------------------- inclusive scan (float64)
 * Reduce-then-scan: each thread sums its contiguous block, the block sums
 * are prefixed serially, then each thread scans its block from its offset.
 * `chains` > 1 splits every thread's block into that many sub-blocks scanned
 * in one interleaved loop (independent add chains: more instruction-level
 * parallelism than the single latency-bound chain). */
void scan_f64(int64_t n, const double *restrict x, double *restrict y, int nt, int chains)
{
    int T = threads(nt);
    if (chains < 1) chains = 1;
    if (chains > 8) chains = 8;
    if (n < (int64_t)SERIAL_BELOW * T) T = 1;
    if (T > MAX_THREADS / 8) T = MAX_THREADS / 8;
    int B = T * chains;                    /* number of blocks */
    double offset[MAX_THREADS + 1];
    #pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        for (int c = 0; c < chains; c++) {
            int b = t * chains + c;
            int64_t lo = n * b / B, hi = n * (b + 1) / B;
            double s = 0.0;
            #pragma omp simd reduction(+:s)
            for (int64_t i = lo; i < hi; i++)
                s += x[i];
            offset[b + 1] = s;
        }
        #pragma omp barrier
        #pragma omp single
        {
            offset[0] = 0.0;
            for (int b = 1; b <= B; b++)
                offset[b] += offset[b - 1];
        }
        if (chains == 1) {
            int64_t lo = n * t / T, hi = n * (t + 1) / T;
            double s = offset[t];
            for (int64_t i = lo; i < hi; i++) {
                s += x[i];
                y[i] = s;
            }
        } else {
            int64_t lo[8], len = n, k;
            double s[8];
            for (int c = 0; c < chains; c++) {
                int b = t * chains + c;
                lo[c] = n * b / B;
                int64_t l = n * (b + 1) / B - lo[c];
                if (l < len) len = l;
                s[c] = offset[b];
            }
            for (k = 0; k < len; k++)          /* interleaved common part */
                for (int c = 0; c < chains; c++) {
                    s[c] += x[lo[c] + k];
                    y[lo[c] + k] = s[c];
                }
            for (int c = 0; c < chains; c++) { /* ragged tails */
                int b = t * chains + c;
                int64_t hi = n * (b + 1) / B;
                for (int64_t i = lo[c] + len; i < hi; i++) {
                    s[c] += x[i];
                    y[i] = s[c];
                }
            }
        }
    }
}

/* ------------------------------------- LSD radix sort, 1- to 11-bit digits
 * Stable sort of int32 keys carrying int32 values; ceil(key_bits / digit_bits)
 * passes (digit_bits 8: 4 passes of 256 buckets for 32-bit keys; 11: 3 passes
 * of 2048 buckets; 7: 3 passes of 128 buckets for 20-bit keys).  With
 * key_bits = 32 the keys are signed (their sign bit is flipped before the
 * digits are taken); with fewer bits they must lie in [0, 2^key_bits).  The
 * caller passes work arrays tk, tv of n items; the result is in out_k, out_v.
 * Each pass: per-thread histograms of contiguous blocks, a serial prefix over
 * (digit, thread), then a stable per-thread scatter.  Counts and positions are
 * signed 32-bit (n < 2^31, checked by the Python caller), as in pcompute's
 * sort: on AMD EPYC (Zen 3) the scatter with 64-bit or unsigned 32-bit
 * counters took 1.6x as long on one thread, the loops differing only in the
 * counter's load (movslq vs mov; 10^7 keys, 4 passes: 165-175 vs 104-106 ms
 * thread CPU, load 7.5). */
#define MAX_DIGIT_BITS 11
void radix_sort_i32(int64_t n, const int32_t *keys, const int32_t *vals,
                    int32_t *out_k, int32_t *out_v, int32_t *tk, int32_t *tv,
                    int key_bits, int nt, int digit_bits)
{
    if (digit_bits < 1 || digit_bits > MAX_DIGIT_BITS) digit_bits = 8;
    const int buckets = 1 << digit_bits;
    const uint32_t mask = (uint32_t)buckets - 1u;
    const uint32_t flip = key_bits == 32 ? 0x80000000u : 0u;
    int passes = (key_bits + digit_bits - 1) / digit_bits;
    int T = threads(nt);
    if (n < (int64_t)SERIAL_BELOW * T) T = 1;
    if (T > 64) T = 64;
    if (passes == 0) {
        memcpy(out_k, keys, n * sizeof(int32_t));
        memcpy(out_v, vals, n * sizeof(int32_t));
        return;
    }
    static int32_t hist[64][1 << MAX_DIGIT_BITS];
    #pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        int64_t lo = n * t / T, hi = n * (t + 1) / T;
        int32_t *h = hist[t];
        for (int p = 0; p < passes; p++) {
            /* the last pass writes into out_*, earlier ones alternate */
            int to_out = (passes - 1 - p) % 2 == 0;
            const int32_t *sk = p == 0 ? keys : (to_out ? tk : out_k);
            const int32_t *sv = p == 0 ? vals : (to_out ? tv : out_v);
            int32_t *dk = to_out ? out_k : tk, *dv = to_out ? out_v : tv;
            int shift = digit_bits * p;
            memset(h, 0, buckets * sizeof(int32_t));
            for (int64_t i = lo; i < hi; i++)
                h[(((uint32_t)sk[i] ^ flip) >> shift) & mask]++;
            #pragma omp barrier
            #pragma omp single
            {
                int32_t run = 0;
                for (int d = 0; d < buckets; d++)
                    for (int u = 0; u < T; u++) {
                        int32_t c = hist[u][d];
                        hist[u][d] = run;
                        run += c;
                    }
            }
            for (int64_t i = lo; i < hi; i++) {
                int32_t k = sk[i];
                int32_t pos = h[(((uint32_t)k ^ flip) >> shift) & mask]++;
                dk[pos] = k;
                dv[pos] = sv[i];
            }
            #pragma omp barrier
        }
    }
}

/* ------------------------------------------- compute-heavy map (float64)
 * y = sin(x) exp(-x^2) + sqrt(x), plain libm calls (no -ffast-math, so gcc
 * does not vectorise sin/exp with libmvec: the same calls pcompute makes). */
#include <math.h>
void map_f64(int64_t n, const double *restrict x, double *restrict y, int nt)
{
    #pragma omp parallel for schedule(static) num_threads(threads(nt)) if(n >= SERIAL_BELOW)
    for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        y[i] = sin(v) * exp(-v * v) + sqrt(v);
    }
}

/* ------------------------------------------------------- min (float64) */
double min_f64(int64_t n, const double *restrict x, int nt)
{
    double m = INFINITY;
    #pragma omp parallel for simd reduction(min:m) schedule(static) num_threads(threads(nt)) if(n >= SERIAL_BELOW)
    for (int64_t i = 0; i < n; i++)
        m = x[i] < m ? x[i] : m;
    return m;
}

/* ------------------------------- segmented inclusive scan (float64)
 * flags[i] != 0 starts a segment at i.  Per thread block: the sum since the
 * block's last flag and whether it has one; a serial pass carries the sums
 * across blocks; each block is then rescanned from its carry. */
void segscan_f64(int64_t n, const double *restrict x, const int32_t *restrict flags,
                 double *restrict y, int nt)
{
    int T = threads(nt);
    if (n < (int64_t)SERIAL_BELOW * T) T = 1;
    if (T > MAX_THREADS) T = MAX_THREADS;
    double tail[MAX_THREADS], carry[MAX_THREADS];
    int has[MAX_THREADS];
    #pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        int64_t lo = n * t / T, hi = n * (t + 1) / T;
        double s = 0.0;
        int h = 0;
        for (int64_t i = lo; i < hi; i++) {
            if (flags[i]) { s = 0.0; h = 1; }
            s += x[i];
        }
        tail[t] = s;
        has[t] = h;
        #pragma omp barrier
        #pragma omp single
        {
            double c = 0.0;
            for (int u = 0; u < T; u++) {
                carry[u] = c;
                c = has[u] ? tail[u] : c + tail[u];
            }
        }
        s = carry[t];
        for (int64_t i = lo; i < hi; i++) {
            if (flags[i]) s = 0.0;
            s += x[i];
            y[i] = s;
        }
    }
}

/* ---------------------------------------- gather of 3 float64 arrays */
void gather3_f64(int64_t n, const int32_t *restrict idx, const double *restrict a,
                 const double *restrict b, const double *restrict c, double *restrict oa,
                 double *restrict ob, double *restrict oc, int nt)
{
    #pragma omp parallel for schedule(static) num_threads(threads(nt)) if(n >= SERIAL_BELOW)
    for (int64_t i = 0; i < n; i++) {
        int64_t j = idx[i];
        oa[i] = a[j];
        ob[i] = b[j];
        oc[i] = c[j];
    }
}

/* ---------------------------------------------- timed twins (in-C clocks) */
#define TIMED(call)                                                  \
    for (int r = 0; r < reps; r++) {                                 \
        double t0 = omp_get_wtime();                                 \
        for (int k = 0; k < inner; k++) { call; }                    \
        times[r] = (omp_get_wtime() - t0) / inner;                   \
    }

void time_axpy_f64(int64_t n, double a, const double *x, double *y, int nt,
                   int reps, int inner, double *times)
{ TIMED(axpy_f64(n, a, x, y, nt)) }

static volatile double sink_d;
static volatile int64_t sink_i;

void time_sum_f64(int64_t n, const double *x, int nt, int reps, int inner, double *times)
{ TIMED(sink_d = sum_f64(n, x, nt)) }

void time_sum_f32(int64_t n, const float *x, int nt, int reps, int inner, double *times)
{ TIMED(sink_d = sum_f32(n, x, nt)) }

void time_sum_i32(int64_t n, const int32_t *x, int nt, int reps, int inner, double *times)
{ TIMED(sink_i = sum_i32(n, x, nt)) }

void time_scan_f64(int64_t n, const double *x, double *y, int nt, int chains,
                   int reps, int inner, double *times)
{ TIMED(scan_f64(n, x, y, nt, chains)) }

void time_radix_sort_i32(int64_t n, const int32_t *keys, const int32_t *vals,
                         int32_t *out_k, int32_t *out_v, int32_t *tk, int32_t *tv,
                         int key_bits, int nt, int digit_bits, int reps, int inner,
                         double *times)
{ TIMED(radix_sort_i32(n, keys, vals, out_k, out_v, tk, tv, key_bits, nt, digit_bits)) }

void time_map_f64(int64_t n, const double *x, double *y, int nt, int reps, int inner,
                  double *times)
{ TIMED(map_f64(n, x, y, nt)) }

void time_min_f64(int64_t n, const double *x, int nt, int reps, int inner, double *times)
{ TIMED(sink_d = min_f64(n, x, nt)) }

void time_segscan_f64(int64_t n, const double *x, const int32_t *flags, double *y, int nt,
                      int reps, int inner, double *times)
{ TIMED(segscan_f64(n, x, flags, y, nt)) }

void time_gather3_f64(int64_t n, const int32_t *idx, const double *a, const double *b,
                      const double *c, double *oa, double *ob, double *oc, int nt,
                      int reps, int inner, double *times)
{ TIMED(gather3_f64(n, idx, a, b, c, oa, ob, oc, nt)) }
