"""Kernel and code timings: the store (:mod:`.store`), the timers the
primitives use (:mod:`.timers`) and the reports (:mod:`.report`).
Compyle's API over them is :mod:`pcompute.profile`."""
