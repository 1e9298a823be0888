"""The records of :mod:`.parallelize`: a top-level statement and the plan
of how a loop nest runs at a call."""
from dataclasses import dataclass


@dataclass
class Step:
    """A top-level statement: a loop nest, a return, or plain Python."""
    kind: str               # "nest", "return", "python"
    node: object
    code: object = None
    live_out: frozenset = frozenset()
    loaded: tuple = ()
    writes: frozenset = frozenset()     # a nest: the arrays it may write
    sole_stores: frozenset = frozenset()    # a nest: names only stored, once (coverage.py)
    segment_names: frozenset = frozenset()  # a nest: the names of its segment's nests


@dataclass
class Plan:
    """How a nest runs at a call: launch / host loop / serial."""
    kind: str
    loop: object
    kernel: object = None
    children: tuple = ()
    reasons: tuple = ()
    reductions: tuple = ()  # (scalar, operator) of a "reduce" plan
    written: tuple = ()     # "speculate": the arrays the nest may write
    canon: tuple = ()       # "speculate": (user name, canonical name) of logged arrays
    unchecked: object = None  # "speculate": the parallel kernel without checks
    overwrite_only: bool = False  # "speculate": a rerun rewrites all the run wrote
    chunked: object = None  # "speculate": (chunked kernel, checks) for few threads
    chunked_ahead: object = None  # "speculate": the chunked kernel with prefetches
    memo: object = None     # "speculate": (validating kernel, key arrays), specmemo
