"""Loops whose dependences go through data, for the speculation tests
(tests/test_autopar_speculate.py) and benchmarks: plain Python functions."""


def gather_scatter(a, b, w, r, n):
    # flow/anti/output dependences between iterations exist exactly when the
    # index arrays w (written) and r (read) make two iterations meet
    for i in range(n):
        a[w[i]] = a[r[i]] + b[i]


def scatter(x, y, p, n):
    for i in range(n):
        x[p[i]] = y[i]


def histogram(h, keys, n):
    for i in range(n):
        h[keys[i]] += 1


def spmv_transpose(y, rowptr, col, val, x, n):
    # y = A^T x for A in CSR form: rows scatter into the columns they hold
    for i in range(n):
        for k in range(rowptr[i], rowptr[i + 1]):
            y[col[k]] += val[k] * x[i]


def cg_like(q, perm, rowstr, colidx, a, p, n):
    # NAS CG's sparse product q = A p, its rows stored under a permutation
    for j in range(n):
        s = 0.0
        for k in range(rowstr[j], rowstr[j + 1]):
            s += a[k] * p[colidx[k]]
        q[perm[j]] = s


def is_like(key_buff, ptr, keys, n):
    # NAS IS's ranking: each key takes the next free slot of its bucket
    for i in range(n):
        k = keys[i]
        ptr[k] -= 1
        key_buff[ptr[k]] = k


def owner_gather(x, idx, n):
    # x[i] belongs to iteration i (not logged); x[idx[i]] is checked against it
    for i in range(n):
        x[i] = x[idx[i]] * 0.5 + 1.0


def repeated_scatter(x, y, p, steps, n):
    # a time loop (sequential: every step rewrites x) around a speculated loop
    for t in range(steps):
        for i in range(n):
            x[p[i]] = x[p[i]] * 0.5 + y[i] + t


def outside_subset(x, y, p, n):
    for i in range(n):
        x[p[i]] = [y[i]][0]


def masked_scatter(x, y, p, n):
    # which elements are written depends on y too: the keys alone do not
    # decide the checks (no verdict reused, specmemo)
    for i in range(n):
        if y[i] > 0.5:
            x[p[i]] = y[i]


def two_scatters(x, y, p, q, n):
    # two speculated loops in one function: the profile records each
    for i in range(n):
        x[p[i]] = y[i]
    for i in range(n):
        y[q[i]] = x[i] * 2.0


def doubled_scatter(x, y, p, n):
    # for uint8 p, p[i] + p[i] and p[i] * p[i] are ints (C promotes them), not
    # NumPy's wrapping uint8 scalars
    for i in range(n):
        x[p[i] + p[i]] = y[i] + p[i] * p[i]


def two_targets(x, z, y, p, r, n):
    # x and z passed as one array: the keys p and r then meet (specmemo)
    for i in range(n):
        x[p[i]] = y[i]
        z[r[i]] = y[i] + 1.0
