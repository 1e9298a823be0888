/* Hand-written C + OpenMP reference of the MD example (examples/md): the same
 * physics and the same algorithms, for the benchmark's ratios.
 *
 *   strategy 0 "count": cells by a counting sort (atomic increments rank each
 *              particle in its cell, an exclusive scan gives the cell starts, a
 *              scatter fills the cells), then full neighbour lists built in two
 *              passes (count, exclusive scan, fill), forces from the lists;
 *   strategy 1 "cells": the same counting sort; the force loop walks the 3^dim
 *              cells around each particle (in 2-D as three strips: a column's
 *              three cells are adjacent in the cell order), no list;
 *   strategy 2 "simple": lists from all pairs, O(N^2).
 *
 * Lennard-Jones (sigma = epsilon = m = 1, cut-off 3, no shift), harmonic walls
 * (k = 50 within 0.5 of a wall) or, in 3-D, periodic boundaries; velocity
 * Verlet.  With skin > 0 lists and cells use reach 3 + skin and are rebuilt
 * when a particle has moved more than skin / 2 since the last build.
 *
 * The hot loops (list build, forces) are hand-specialised for 2-D with walls
 * and for 3-D with walls and periodic (local restrict pointers, one code path
 * per geometry); the generic D-dimensional code remains for the rest.
 *
 * Built by benchmarks/reference/md.py with gcc -O3 -fopenmp (and again with
 * -march=native); driven through ctypes: md_create, md_reset, md_steps,
 * md_energy, md_rebuilds, md_positions, md_free.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RC 3.0
#define WALL_K 50.0
#define WALL_RANGE 0.5
#define INLINE static inline __attribute__((always_inline))

typedef struct {
    int64_t n, ncells, cap;
    int dim, periodic, strategy, nt, nc;
    double dt, skin, side, reach, cell_size;
    double *x[3], *v[3], *a[3], *x0[3], *pe;
    int32_t *keys, *ranks, *counts, *cell_start, *cell_particles, *ncount, *nbrs;
    int64_t *offsets, *block;
    int64_t rebuilds;
} md_t;

INLINE double lj_force(double r2)
{
    double inv2 = 1.0 / r2, inv6 = inv2 * inv2 * inv2;
    return 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0);
}

INLINE double lj_energy(double r2)
{
    double inv2 = 1.0 / r2, inv6 = inv2 * inv2 * inv2;
    return 2.0 * inv6 * (inv6 - 1.0);
}

INLINE double wall_force(double p, double side)
{
    if (p < WALL_RANGE) return WALL_K * (WALL_RANGE - p);
    if (p > side - WALL_RANGE) return -WALL_K * (WALL_RANGE - (side - p));
    return 0.0;
}

INLINE double wall_energy(double p, double side)
{
    double d = WALL_RANGE;
    if (p < WALL_RANGE) d = p;
    if (p > side - WALL_RANGE) d = side - p;
    return 0.5 * WALL_K * (WALL_RANGE - d) * (WALL_RANGE - d);
}

INLINE double min_image(double d, double side)
{
    if (d > 0.5 * side) return d - side;
    if (d < -0.5 * side) return d + side;
    return d;
}

INLINE int cell_of(double p, double cell_size, int nc)
{
    /* only a quotient in range is converted (a NaN would be undefined): a NaN
     * position is binned into the first cell, as pcompute's cell_of does */
    double q = p / cell_size;
    return !(q >= 0.0) ? 0 : (q >= nc ? nc - 1 : (int)q);
}

static int threads(md_t *m) { return m->nt > 0 ? m->nt : omp_get_max_threads(); }

/* Exclusive scan of counts[0..n) into out[0..n]; per-thread blocks. */
static void exclusive_scan(md_t *m, const int32_t *counts, int64_t *out64, int32_t *out32,
                           int64_t n)
{
    int T = threads(m);
    if (n < 65536) T = 1;
    int64_t *block = m->block;
    #pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        int64_t lo = n * t / T, hi = n * (t + 1) / T, s = 0;
        for (int64_t i = lo; i < hi; i++) s += counts[i];
        block[t + 1] = s;
        #pragma omp barrier
        #pragma omp single
        {
            block[0] = 0;
            for (int u = 1; u <= T; u++) block[u] += block[u - 1];
        }
        s = block[t];
        for (int64_t i = lo; i < hi; i++) {
            if (out64) out64[i] = s; else out32[i] = (int32_t)s;
            s += counts[i];
        }
        if (t == T - 1) { if (out64) out64[n] = s; else out32[n] = (int32_t)s; }
    }
}

INLINE int64_t cell_key(md_t *m, int64_t i, const int D)
{
    int64_t k = 0;
    for (int d = 0; d < D; d++) k = k * m->nc + cell_of(m->x[d][i], m->cell_size, m->nc);
    return k;
}

/* Counting sort of the particles into cells. */
static void bin(md_t *m, const int D)
{
    int64_t n = m->n;
    int T = threads(m);
    memset(m->counts, 0, m->ncells * sizeof(int32_t));
    #pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t i = 0; i < n; i++) {
        int64_t k = cell_key(m, i, D);
        int32_t r;
        m->keys[i] = (int32_t)k;
        #pragma omp atomic capture
        r = m->counts[k]++;
        m->ranks[i] = r;
    }
    exclusive_scan(m, m->counts, NULL, m->cell_start, m->ncells);
    #pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t i = 0; i < n; i++)
        m->cell_particles[m->cell_start[m->keys[i]] + m->ranks[i]] = (int32_t)i;
}

/* Visit the particles j of the 3^D cells around particle i (or all j for
 * simple), calling BODY with dx[], r2 (pair separation; j != i checked by BODY). */
#define FOR_NEIGHBOUR_CELLS(D, BODY)                                                  \
    do {                                                                              \
        int cc[3], lo_[3], hi_[3];                                                    \
        for (int d = 0; d < D; d++) {                                                 \
            cc[d] = cell_of(xi[d], m->cell_size, nc);                                 \
            if (periodic) { lo_[d] = cc[d] - 1; hi_[d] = cc[d] + 2; }                 \
            else { lo_[d] = cc[d] > 0 ? cc[d] - 1 : 0;                                \
                   hi_[d] = cc[d] + 2 < nc ? cc[d] + 2 : nc; }                        \
        }                                                                             \
        int ix_[3];                                                                   \
        for (ix_[0] = lo_[0]; ix_[0] < hi_[0]; ix_[0]++)                              \
        for (ix_[1] = lo_[1]; ix_[1] < hi_[1]; ix_[1]++)                              \
        for (ix_[2] = (D == 3 ? lo_[2] : 0); ix_[2] < (D == 3 ? hi_[2] : 1); ix_[2]++) { \
            int64_t c = 0;                                                            \
            for (int d = 0; d < D; d++) {                                             \
                int q = ix_[d];                                                       \
                if (periodic) q = (q + nc) % nc;                                      \
                c = c * nc + q;                                                       \
            }                                                                         \
            for (int32_t k = cs[c]; k < cs[c + 1]; k++) {                             \
                int32_t j = cp[k];                                                    \
                BODY                                                                  \
            }                                                                         \
        }                                                                             \
    } while (0)

INLINE double separation(md_t *m, int64_t i, int32_t j, const double *xi, double *dx,
                         const int D, int periodic)
{
    double r2 = 0.0;
    for (int d = 0; d < D; d++) {
        double t = xi[d] - m->x[d][j];
        if (periodic) t = min_image(t, m->side);
        dx[d] = t;
        r2 += t * t;
    }
    (void)i;
    return r2;
}

/* One pass of the two-pass list build: fill == 0 counts, fill == 1 writes. */
static void list_pass(md_t *m, const int D, int fill)
{
    int64_t n = m->n;
    int nc = m->nc, periodic = m->periodic;
    double rl2 = m->reach * m->reach;
    const int32_t *cs = m->cell_start, *cp = m->cell_particles;
    #pragma omp parallel for schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < n; i++) {
        double xi[3], dx[3];
        for (int d = 0; d < D; d++) xi[d] = m->x[d][i];
        int32_t cnt = 0;
        int32_t *out = fill ? m->nbrs + m->offsets[i] : NULL;
        if (m->strategy == 2) {
            for (int32_t j = 0; j < n; j++) {
                double r2 = separation(m, i, j, xi, dx, D, periodic);
                if (r2 < rl2 && j != i) { if (fill) out[cnt] = j; cnt++; }
            }
        } else {
            FOR_NEIGHBOUR_CELLS(D, {
                double r2 = separation(m, i, j, xi, dx, D, periodic);
                if (r2 < rl2 && j != i) { if (fill) out[cnt] = j; cnt++; }
            });
        }
        if (!fill) m->ncount[i] = cnt;
    }
}

/* 2-D, walls: the hot loops written out with local pointers, as one would by
 * hand (the generic D-dimensional code above is slower in 2-D). */
static void list_pass_2d(md_t *m, int fill)
{
    const int64_t n = m->n;
    const int nc = m->nc;
    const double rl2 = m->reach * m->reach, csz = m->cell_size;
    const double *restrict x = m->x[0], *restrict y = m->x[1];
    const int32_t *restrict cs = m->cell_start, *restrict cp = m->cell_particles;
    const int64_t *restrict off = m->offsets;
    int32_t *restrict nbrs = m->nbrs, *restrict ncount = m->ncount;
    const int simple = m->strategy == 2;
    #pragma omp parallel for schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < n; i++) {
        const double xi = x[i], yi = y[i];
        int32_t cnt = 0;
        int32_t *restrict out = fill ? nbrs + off[i] : NULL;
        /* The fill pass stores at most the count pass's number (as pcompute's
         * kernels do); one test, as `room` is 0 in the count pass.  It is also
         * faster here: with `if (fill)` gcc unswitched and vectorised the count
         * pass, slower on the short cell loops (one thread, N = 10^5: 0.88x). */
        const int32_t room = fill ? ncount[i] : 0;
        if (simple && !fill) {
            /* i itself (distance 0) is counted with the others and taken off
             * after the loop: no integer test in the vectorised count loop
             * (one thread, N = 10^4: count pass 0.80x of the loop with `j != i`) */
            for (int32_t j = 0; j < n; j++) {
                double dx = xi - x[j], dy = yi - y[j];
                cnt += dx * dx + dy * dy < rl2;
            }
            double sx = xi - x[i], sy = yi - y[i];
            cnt -= sx * sx + sy * sy < rl2;
        } else if (simple) {
            /* no guard: stores every pair it finds (see benchmarks/README.md); a
             * rejected pair `continue`s (as fast as the loop gcc unswitched from
             * a shared count/fill loop; `if (d2 < rl2 && j != i) {store}`
             * written out in its own loop ran 1.5x slower) */
            for (int32_t j = 0; j < n; j++) {
                double dx = xi - x[j], dy = yi - y[j];
                if (!(dx * dx + dy * dy < rl2) || j == i) continue;   /* NaN: no pair, as counted */
                out[cnt] = j;
                cnt++;
            }
        } else {
            int cx = cell_of(xi, csz, nc), cy = cell_of(yi, csz, nc);
            int x0 = cx > 0 ? cx - 1 : 0, x1 = cx + 2 < nc ? cx + 2 : nc;
            int y0 = cy > 0 ? cy - 1 : 0, y1 = cy + 2 < nc ? cy + 2 : nc;
            for (int ix = x0; ix < x1; ix++)
                for (int iy = y0; iy < y1; iy++) {
                    int c = ix * nc + iy;
                    for (int32_t k = cs[c]; k < cs[c + 1]; k++) {
                        int32_t j = cp[k];
                        double dx = xi - x[j], dy = yi - y[j];
                        if (dx * dx + dy * dy < rl2 && j != i) {
                            if (cnt < room) out[cnt] = j;
                            cnt++;
                        }
                    }
                }
        }
        if (!fill) ncount[i] = cnt;
    }
}

static void forces_2d(md_t *m)
{
    const int64_t n = m->n;
    const int nc = m->nc;
    const double rc2 = RC * RC, csz = m->cell_size, side = m->side;
    const double *restrict x = m->x[0], *restrict y = m->x[1];
    double *restrict ax = m->a[0], *restrict ay = m->a[1], *restrict pe = m->pe;
    const int32_t *restrict cs = m->cell_start, *restrict cp = m->cell_particles;
    const int64_t *restrict off = m->offsets;
    const int32_t *restrict nbrs = m->nbrs;
    const int cells = m->strategy == 1;
    #pragma omp parallel for schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < n; i++) {
        const double xi = x[i], yi = y[i];
        double fx = 0.0, fy = 0.0, e = 0.0;
        if (cells) {
            int cx = cell_of(xi, csz, nc), cy = cell_of(yi, csz, nc);
            int x0 = cx > 0 ? cx - 1 : 0, x1 = cx + 2 < nc ? cx + 2 : nc;
            int y0 = cy > 0 ? cy - 1 : 0, y1 = cy + 2 < nc ? cy + 2 : nc;
            /* the cells y0 .. y1 - 1 of column ix are adjacent in cp: one strip */
            for (int ix = x0; ix < x1; ix++)
                for (int32_t k = cs[ix * nc + y0], k1 = cs[ix * nc + y1]; k < k1; k++) {
                    int32_t j = cp[k];
                    double dx = xi - x[j], dy = yi - y[j], r2 = dx * dx + dy * dy;
                    if (r2 < rc2 && j != i) {
                        double f = lj_force(r2);
                        fx += f * dx;
                        fy += f * dy;
                        e += lj_energy(r2);
                    }
                }
        } else {
            for (int64_t k = off[i]; k < off[i + 1]; k++) {
                int32_t j = nbrs[k];
                double dx = xi - x[j], dy = yi - y[j], r2 = dx * dx + dy * dy;
                if (r2 < rc2) {
                    double f = lj_force(r2);
                    fx += f * dx;
                    fy += f * dy;
                    e += lj_energy(r2);
                }
            }
        }
        ax[i] = fx + wall_force(xi, side);
        ay[i] = fy + wall_force(yi, side);
        pe[i] = e + wall_energy(xi, side) + wall_energy(yi, side);
    }
}

/* 3-D, walls or periodic: the hot loops written out like the 2-D ones (local
 * restrict pointers, the 27 cells unrolled by the compiler); `periodic` is a
 * constant in each caller, so each geometry gets its own specialised code. */
#define WALK_27_CELLS(BODY)                                                          \
    do {                                                                             \
        int cx = cell_of(xi, csz, nc), cy = cell_of(yi, csz, nc),                    \
            cz = cell_of(zi, csz, nc);                                               \
        for (int ox = -1; ox <= 1; ox++) {                                           \
            int qx = cx + ox;                                                        \
            if (periodic) qx = qx < 0 ? qx + nc : (qx >= nc ? qx - nc : qx);         \
            else if (qx < 0 || qx >= nc) continue;                                   \
            for (int oy = -1; oy <= 1; oy++) {                                       \
                int qy = cy + oy;                                                    \
                if (periodic) qy = qy < 0 ? qy + nc : (qy >= nc ? qy - nc : qy);     \
                else if (qy < 0 || qy >= nc) continue;                               \
                for (int oz = -1; oz <= 1; oz++) {                                   \
                    int qz = cz + oz;                                                \
                    if (periodic) qz = qz < 0 ? qz + nc : (qz >= nc ? qz - nc : qz); \
                    else if (qz < 0 || qz >= nc) continue;                           \
                    int c = (qx * nc + qy) * nc + qz;                                \
                    for (int32_t k = cs[c]; k < cs[c + 1]; k++) {                    \
                        int32_t j = cp[k];                                           \
                        BODY                                                         \
                    }                                                                \
                }                                                                    \
            }                                                                        \
        }                                                                            \
    } while (0)

INLINE double wrap_d(double d, double side, double half, const int periodic)
{
    if (periodic) {
        if (d > half) return d - side;
        if (d < -half) return d + side;
    }
    return d;
}

INLINE void list_pass_3d_impl(md_t *m, int fill, const int periodic)
{
    const int64_t n = m->n;
    const int nc = m->nc;
    const double rl2 = m->reach * m->reach, csz = m->cell_size;
    const double side = m->side, half = 0.5 * m->side;
    const double *restrict x = m->x[0], *restrict y = m->x[1], *restrict z = m->x[2];
    const int32_t *restrict cs = m->cell_start, *restrict cp = m->cell_particles;
    const int64_t *restrict off = m->offsets;
    int32_t *restrict nbrs = m->nbrs, *restrict ncount = m->ncount;
    #pragma omp parallel for schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < n; i++) {
        const double xi = x[i], yi = y[i], zi = z[i];
        int32_t cnt = 0;
        int32_t *restrict out = fill ? nbrs + off[i] : NULL;
        WALK_27_CELLS({
            double dx = wrap_d(xi - x[j], side, half, periodic);
            double dy = wrap_d(yi - y[j], side, half, periodic);
            double dz = wrap_d(zi - z[j], side, half, periodic);
            if (dx * dx + dy * dy + dz * dz < rl2 && j != i) {
                if (fill) out[cnt] = j;
                cnt++;
            }
        });
        if (!fill) ncount[i] = cnt;
    }
}

INLINE void forces_3d_impl(md_t *m, const int periodic)
{
    const int64_t n = m->n;
    const int nc = m->nc;
    const double rc2 = RC * RC, csz = m->cell_size, side = m->side, half = 0.5 * m->side;
    const double *restrict x = m->x[0], *restrict y = m->x[1], *restrict z = m->x[2];
    double *restrict ax = m->a[0], *restrict ay = m->a[1], *restrict az = m->a[2];
    double *restrict pe = m->pe;
    const int32_t *restrict cs = m->cell_start, *restrict cp = m->cell_particles;
    const int64_t *restrict off = m->offsets;
    const int32_t *restrict nbrs = m->nbrs;
    const int cells = m->strategy == 1;
    #pragma omp parallel for schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < n; i++) {
        const double xi = x[i], yi = y[i], zi = z[i];
        double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0;
        if (cells) {
            WALK_27_CELLS({
                double dx = wrap_d(xi - x[j], side, half, periodic);
                double dy = wrap_d(yi - y[j], side, half, periodic);
                double dz = wrap_d(zi - z[j], side, half, periodic);
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < rc2 && j != i) {
                    double f = lj_force(r2);
                    fx += f * dx;
                    fy += f * dy;
                    fz += f * dz;
                    e += lj_energy(r2);
                }
            });
        } else {
            for (int64_t k = off[i]; k < off[i + 1]; k++) {
                int32_t j = nbrs[k];
                double dx = wrap_d(xi - x[j], side, half, periodic);
                double dy = wrap_d(yi - y[j], side, half, periodic);
                double dz = wrap_d(zi - z[j], side, half, periodic);
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < rc2) {
                    double f = lj_force(r2);
                    fx += f * dx;
                    fy += f * dy;
                    fz += f * dz;
                    e += lj_energy(r2);
                }
            }
        }
        if (!periodic) {
            fx += wall_force(xi, side);
            fy += wall_force(yi, side);
            fz += wall_force(zi, side);
            e += wall_energy(xi, side) + wall_energy(yi, side) + wall_energy(zi, side);
        }
        ax[i] = fx;
        ay[i] = fy;
        az[i] = fz;
        pe[i] = e;
    }
}

static void list_pass_3d(md_t *m, int fill)
{
    if (m->periodic) list_pass_3d_impl(m, fill, 1); else list_pass_3d_impl(m, fill, 0);
}

static void forces_3d(md_t *m)
{
    if (m->periodic) forces_3d_impl(m, 1); else forces_3d_impl(m, 0);
}

/* The specialised passes cover the cell strategies; `simple` (all pairs) and
 * a grid of fewer than 3 cells a side (where the 27 cells would repeat) use
 * the generic code. */
static int specialised_3d(md_t *m) { return m->strategy != 2 && m->nc >= 3; }

static void build_lists(md_t *m, const int D)
{
    if (D == 2 && !m->periodic) list_pass_2d(m, 0);
    else if (D == 3 && specialised_3d(m)) list_pass_3d(m, 0);
    else list_pass(m, D, 0);
    exclusive_scan(m, m->ncount, m->offsets, NULL, m->n);
    int64_t total = m->offsets[m->n];
    if (total > m->cap) {
        free(m->nbrs);
        m->cap = total + total / 4 + 16;
        m->nbrs = malloc(m->cap * sizeof(int32_t));
    }
    if (D == 2 && !m->periodic) list_pass_2d(m, 1);
    else if (D == 3 && specialised_3d(m)) list_pass_3d(m, 1);
    else list_pass(m, D, 1);
}

INLINE void finish_particle(md_t *m, int64_t i, const double *xi, double *f, double e,
                            const int D)
{
    if (!m->periodic)
        for (int d = 0; d < D; d++) {
            f[d] += wall_force(xi[d], m->side);
            e += wall_energy(xi[d], m->side);
        }
    for (int d = 0; d < D; d++) m->a[d][i] = f[d];
    m->pe[i] = e;
}

static void forces(md_t *m, const int D)
{
    if (D == 2 && !m->periodic) { forces_2d(m); return; }
    if (D == 3 && specialised_3d(m)) { forces_3d(m); return; }
    int64_t n = m->n;
    int nc = m->nc, periodic = m->periodic;
    const double rc2 = RC * RC;
    const int32_t *cs = m->cell_start, *cp = m->cell_particles;
    #pragma omp parallel for schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < n; i++) {
        double xi[3], dx[3], f[3] = {0.0, 0.0, 0.0}, e = 0.0;
        for (int d = 0; d < D; d++) xi[d] = m->x[d][i];
        if (m->strategy == 1) {
            FOR_NEIGHBOUR_CELLS(D, {
                double r2 = separation(m, i, j, xi, dx, D, periodic);
                if (r2 < rc2 && j != i) {
                    double s = lj_force(r2);
                    for (int d = 0; d < D; d++) f[d] += s * dx[d];
                    e += lj_energy(r2);
                }
            });
        } else {
            for (int64_t k = m->offsets[i]; k < m->offsets[i + 1]; k++) {
                int32_t j = m->nbrs[k];
                double r2 = separation(m, i, j, xi, dx, D, periodic);
                if (r2 < rc2) {
                    double s = lj_force(r2);
                    for (int d = 0; d < D; d++) f[d] += s * dx[d];
                    e += lj_energy(r2);
                }
            }
        }
        finish_particle(m, i, xi, f, e, D);
    }
}

static void rebuild(md_t *m, const int D)
{
    if (m->strategy != 2) bin(m, D);
    if (m->strategy != 1) build_lists(m, D);
    if (m->skin > 0)
        for (int d = 0; d < D; d++) memcpy(m->x0[d], m->x[d], m->n * sizeof(double));
    m->rebuilds++;
}

static int stale(md_t *m, const int D)
{
    if (m->skin <= 0) return 1;
    double mx = 0.0;
    #pragma omp parallel for reduction(max:mx) schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < m->n; i++) {
        double s = 0.0;
        for (int d = 0; d < D; d++) {
            double t = m->x[d][i] - m->x0[d][i];
            if (m->periodic) t = min_image(t, m->side);
            s += t * t;
        }
        mx = s > mx ? s : mx;
    }
    return mx > 0.25 * m->skin * m->skin;
}

static void steps(md_t *m, int count, const int D)
{
    int64_t n = m->n;
    double h = 0.5 * m->dt, dt = m->dt, side = m->side;
    int periodic = m->periodic;
    for (int s = 0; s < count; s++) {
        #pragma omp parallel for schedule(static) num_threads(threads(m))
        for (int64_t i = 0; i < n; i++)
            for (int d = 0; d < D; d++) {
                double v = m->v[d][i] + h * m->a[d][i];
                double p = m->x[d][i] + dt * v;
                if (periodic) { if (p < 0.0) p += side; else if (p >= side) p -= side; }
                m->v[d][i] = v;
                m->x[d][i] = p;
            }
        if (stale(m, D)) rebuild(m, D);
        forces(m, D);
        #pragma omp parallel for schedule(static) num_threads(threads(m))
        for (int64_t i = 0; i < n; i++)
            for (int d = 0; d < D; d++)
                m->v[d][i] += h * m->a[d][i];
    }
}

static void steps2(md_t *m, int count) { steps(m, count, 2); }
static void steps3(md_t *m, int count) { steps(m, count, 3); }
static void rebuild2(md_t *m) { rebuild(m, 2); forces(m, 2); }
static void rebuild3(md_t *m) { rebuild(m, 3); forces(m, 3); }

/* ---------------------------------------------------------------- API */
void md_reset(md_t *m, const double *pos)
{
    for (int d = 0; d < m->dim; d++) {
        memcpy(m->x[d], pos + d * m->n, m->n * sizeof(double));
        memset(m->v[d], 0, m->n * sizeof(double));
    }
    m->rebuilds = 0;
    if (m->dim == 2) rebuild2(m); else rebuild3(m);
}

md_t *md_create(int64_t n, int dim, int periodic, int strategy, double skin, double dt,
                double side, int nt, const double *pos)
{
    md_t *m = calloc(1, sizeof(md_t));
    m->n = n; m->dim = dim; m->periodic = periodic; m->strategy = strategy;
    m->skin = skin; m->dt = dt; m->side = side; m->nt = nt;
    m->reach = RC + skin;
    m->nc = (int)floor(side / m->reach);
    if (m->nc < 1) m->nc = 1;
    m->cell_size = side / m->nc;
    m->ncells = 1;
    for (int d = 0; d < dim; d++) m->ncells *= m->nc;
    for (int d = 0; d < dim; d++) {
        m->x[d] = malloc(n * sizeof(double));
        m->v[d] = malloc(n * sizeof(double));
        m->a[d] = calloc(n, sizeof(double));
        m->x0[d] = malloc(n * sizeof(double));
    }
    m->pe = calloc(n, sizeof(double));
    m->keys = malloc(n * sizeof(int32_t));
    m->ranks = malloc(n * sizeof(int32_t));
    m->ncount = malloc(n * sizeof(int32_t));
    m->cell_particles = malloc(n * sizeof(int32_t));
    m->counts = malloc(m->ncells * sizeof(int32_t));
    m->cell_start = malloc((m->ncells + 1) * sizeof(int32_t));
    m->offsets = malloc((n + 1) * sizeof(int64_t));
    m->block = malloc(1025 * sizeof(int64_t));
    m->cap = 8 * n + 16;
    m->nbrs = malloc(m->cap * sizeof(int32_t));
    md_reset(m, pos);
    return m;
}

void md_steps(md_t *m, int count)
{
    if (m->dim == 2) steps2(m, count); else steps3(m, count);
}

/* Seconds for `count` steps, by omp_get_wtime. */
double md_time_steps(md_t *m, int count)
{
    double t0 = omp_get_wtime();
    md_steps(m, count);
    return omp_get_wtime() - t0;
}

void md_energy(md_t *m, double *out)
{
    double ke = 0.0, pe = 0.0;
    #pragma omp parallel for reduction(+:ke, pe) schedule(static) num_threads(threads(m))
    for (int64_t i = 0; i < m->n; i++) {
        for (int d = 0; d < m->dim; d++) ke += 0.5 * m->v[d][i] * m->v[d][i];
        pe += m->pe[i];
    }
    out[0] = ke; out[1] = pe; out[2] = ke + pe;
}

int64_t md_rebuilds(md_t *m) { return m->rebuilds; }

/* The positions, dim arrays of n one after the other (the layout md_reset takes). */
void md_positions(md_t *m, double *out)
{
    for (int d = 0; d < m->dim; d++)
        memcpy(out + d * m->n, m->x[d], m->n * sizeof(double));
}

int64_t md_pairs(md_t *m) { return m->strategy == 1 ? -1 : m->offsets[m->n]; }

void md_free(md_t *m)
{
    for (int d = 0; d < m->dim; d++) { free(m->x[d]); free(m->v[d]); free(m->a[d]); free(m->x0[d]); }
    free(m->pe); free(m->keys); free(m->ranks); free(m->ncount); free(m->cell_particles);
    free(m->counts); free(m->cell_start); free(m->offsets); free(m->block); free(m->nbrs);
    free(m);
}
