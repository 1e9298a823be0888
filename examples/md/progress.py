"""A one-line progress bar with steps per second, on a terminal only."""
import time


class Progress:
    """``update(done)`` redraws at most ten times a second; ``clear()`` before printing."""

    WIDTH = 30

    def __init__(self, total, enabled=True, stream=None):
        self.total = max(total, 1)
        self.stream = stream
        self.enabled = enabled and stream is not None and stream.isatty()
        self.start = time.perf_counter()
        self._last_draw = 0.0
        self._last_done = 0
        self._shown = False

    def suggest_chunk(self):
        """How many steps to run before the next update (about 0.1 s of work)."""
        if not self.enabled:
            return self.total
        elapsed = time.perf_counter() - self.start
        if self._last_done == 0 or elapsed <= 0:
            return 1
        return max(1, int(0.1 * self._last_done / elapsed))

    def update(self, done):
        self._last_done = done
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last_draw < 0.1 and done < self.total:
            return
        self._last_draw = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        filled = int(self.WIDTH * done / self.total)
        eta = (self.total - done) / rate if rate > 0 else 0.0
        self.stream.write("\r[%s%s] %d/%d steps  %.0f steps/s  ETA %.0f s  "
                          % ("#" * filled, "." * (self.WIDTH - filled), done,
                             self.total, rate, eta))
        self.stream.flush()
        self._shown = True

    def clear(self):
        if self._shown:
            self.stream.write("\r" + " " * (self.WIDTH + 60) + "\r")
            self.stream.flush()
            self._shown = False

    def close(self):
        self.clear()
