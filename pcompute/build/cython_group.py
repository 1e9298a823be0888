"""Several Cython modules built as one (a group module), ahead of their use.

:func:`build_group` takes the modules a caller will ask
:func:`~pcompute.build.cython_builder.build_cython` for soon (the kernels of
one :func:`pcompute.parallelize` function), merges those built with the
same compile flags and the same link flags but libraries (the group links
every member's libraries) into one module text (:mod:`.cython_merge`) and compiles it
once: the C compiler's fixed cost per module (~0.28 CPU-s at -O0) is then
paid once per group.  Each member's later ``build_cython`` call, with the
same source and flags, finds its
:class:`~pcompute.build.cython_builder.MemberView` in the process memo, and
in a later process through the cache index (``cython-index`` entries: a
member's own key -> the group module), so it is never built again.

Cache correctness: a member's key is the key it has alone (its source, every
flag, the compiler, Python, Cython and numpy identities, ...); the group key
is made of its members' keys and the merger's version, so a group module is
only found for exactly those members.  A group whose text cannot be merged
or whose build fails is counted in ``stats`` and logged: its members are
then built alone at their first use, as without the group (a member's own
compile error is reported there, for its own source).  With
``Config.strict_groups`` (``PCOMPUTE_STRICT_GROUPS=1``, as CI runs) that
fallback is an error instead: :class:`~pcompute.errors.GroupBuildError`
names the group's kernels and the cause.
"""
import logging
import re
import threading

from pcompute.build import cache, cython_builder, cython_merge
from pcompute.config import get_config
from pcompute.errors import BuildError, GroupBuildError

log = logging.getLogger("pcompute.build.cython")

#: counters, for tests: group modules compiled, members they hold, groups
#: not merged (a text the merger cannot take apart), group builds failed.
stats = {"groups": 0, "members": 0, "unmerged": 0, "failed": 0}

_lock = threading.Lock()


def build_group(items, strict=None):
    """Build the modules of ``items`` (tuples ``(source, name_hint, openmp,
    extra_compile_args, extra_link_args)``, as
    :func:`~pcompute.build.cython_builder.build_cython` takes them) as few
    group modules as their flags allow; members already built or cached are
    left out.  Returns the number of group modules made or loaded.

    A group that cannot be merged or built is counted and logged and its
    members are left to be built alone; with ``strict`` (None: the global
    ``Config.strict_groups``) it raises
    :class:`~pcompute.errors.GroupBuildError` instead."""
    if strict is None:
        strict = get_config().strict_groups
    store = cache.Cache()
    pending = {}                # (cflags, ldflags but libraries, header) ->
                                # ({key: (source, name)}, libraries)
    for source, hint, openmp, cflags, ldflags in items:
        key, cf, lf = cython_builder.build_key(source, openmp, "", cflags, ldflags)
        with cython_builder._memo_lock:
            if key in cython_builder._memo:
                continue
        name = cython_builder.module_name(hint, key)
        if store.lookup("cython", key, cython_builder.ext_suffix(), name) is not None \
                or store.lookup(cython_builder.INDEX_KIND, key, ".json") is not None:
            continue
        header = tuple(cython_merge.split(source)[0])
        rest, libs = split_libraries(lf)
        group = pending.setdefault((tuple(cf), tuple(rest), header), ({}, []))
        group[0][key] = (source, name)
        group[1].extend(lib for lib in libs if lib not in group[1])
    made = 0
    for (cflags, rest, _), (members, libs) in pending.items():
        if len(members) > 1:
            made += _build_one(store, members, list(cflags), list(rest) + libs, strict)
    return made


_LIBRARY = re.compile(r"-l[A-Za-z0-9_][A-Za-z0-9_.+-]*$")


def split_libraries(ldflags):
    """``(other flags, libraries)`` of link flags: the ``-l<name>`` flags
    apart, so that members which differ only in the libraries they link
    (``-lm`` for a math function) share a group linked with all of them (a
    library more on the link line changes nothing for a member that does
    not use it)."""
    rest, libs = [], []
    for flag in ldflags:
        (libs if _LIBRARY.match(flag) else rest).append(flag)
    return rest, libs


def group_key(member_keys):
    """The cache key of the group module of the members of ``member_keys``
    (in the order given: the members' order in the module)."""
    return cache.make_key("cython-group", cython_merge.MERGE_VERSION, list(member_keys))


def _first_error(log):
    """The first error line of a compiler log (Cython's ``file:line:col:
    message`` or the C compiler's ``error:``), or its first line."""
    lines = [line.strip() for line in (log or "").splitlines() if line.strip()]
    for line in lines:
        if re.search(r"\.pyx:\d+:\d+: |\berror\b", line):
            return line
    return lines[0] if lines else "no compiler log"


def _build_one(store, members, cflags, ldflags, strict):
    keys = sorted(members)
    names = [members[k][1] for k in keys]
    try:
        text = cython_merge.merge([members[k][0] for k in keys])
    except cython_merge.MergeError as exc:
        stats["unmerged"] += 1
        if strict:
            raise GroupBuildError(names, "merged: %s" % exc) from None
        log.info("not merged (%s): %d modules built one by one", exc, len(keys))
        return 0
    gkey = group_key(keys)
    name = cython_builder.module_name("group", gkey)
    if cache.save_source_enabled():         # each member's text and the group's
        for key in keys:
            store.save_source("cython", key, "pyx", members[key][0])
        store.save_source("cython", gkey, "pyx", text)
    with _lock:
        try:
            path = store.get_or_build(
                "cython", gkey,
                lambda work: cython_builder._compile(text, name, work, cflags, ldflags),
                suffix=cython_builder.ext_suffix(), name=name)
        except BuildError as exc:
            stats["failed"] += 1
            # one line: the text is pcompute's, not the user's (its compiler
            # log at debug level; a member's own error shows at its own build)
            first = str(exc).strip().split("\n", 1)[0]
            if strict:
                raise GroupBuildError(names, "built: %s (%s)" % (first, _first_error(exc.log)),
                                      log=exc.log) from None
            log.warning("the group module of %s failed to build (%s); they are built "
                        "one by one", ", ".join(names), first)
            log.debug("the group module %s failed to build:\n%s", name, exc)
            return 0
        module = cython_builder._load(name, path)
    stats["groups"] += 1
    stats["members"] += len(keys)
    with cython_builder._memo_lock:
        cython_builder._memo[gkey] = module
        for k, key in enumerate(keys):
            cython_builder._memo.setdefault(
                key, cython_builder.MemberView(module, k, members[key][1]))
    for k, key in enumerate(keys):
        cython_builder.write_index(store, key, gkey, name, k)
    return 1
