"""The Cython statements of a Reduction module's lanes
(templates/reduction_cython.mako): the template pastes them by name.

An interleaved reduction keeps ``lanes`` partial results in ``pc_acc`` (and
a stack ``pc_stack`` of them per level of its pairwise combine); a tuple
accumulator with interleaved lanes keeps them as a struct of arrays
(``soa``), read and written through ``pc_lane``/``pc_set_lane``.
"""


def lane(soa, acc, k):
    """Lane ``k`` of the accumulator lanes ``acc`` (Cython text)."""
    return "pc_lane(&%s, %s)" % (acc, k) if soa else "%s[%s]" % (acc, k)


def set_lane(soa, acc, k, value):
    """The statement setting lane ``k`` of ``acc`` to ``value``."""
    return "pc_set_lane(&%s, %s, %s)" % (acc, k, value) if soa else \
        "%s[%s] = %s" % (acc, k, value)


def lane_statements(soa, lanes, neutral, arg_tail):
    """The template's lane statements, by name: ``reset_lane`` (lane
    ``pc_k`` to ``neutral``), ``take_item`` (lane ``pc_k`` takes item
    ``pc_base + pc_j * lanes + pc_k``), ``take_tail`` (lane 0 takes item
    ``pc_i``), ``merge_level`` / ``push_level`` (lane ``pc_k`` with the
    stack's level ``pc_lvl``), ``pair_lanes`` (lane ``pc_k`` takes lane
    ``pc_k + pc_step``) and ``first_lane`` (the text of lane 0).
    ``arg_tail``: the map's further arguments, each after a comma."""
    def acc(k):
        return lane(soa, "pc_acc", k)

    def combine(a, b):
        return "pc_combine(%s, %s)" % (a, b)

    item = "pc_map(pc_base + pc_j * %d + pc_k%s)" % (lanes, arg_tail)
    return {
        "reset_lane": set_lane(soa, "pc_acc", "pc_k", neutral),
        "take_item": set_lane(soa, "pc_acc", "pc_k", combine(acc("pc_k"), item)),
        "take_tail": set_lane(soa, "pc_acc", "0",
                              combine(acc("0"), "pc_map(pc_i%s)" % arg_tail)),
        "merge_level": set_lane(soa, "pc_acc", "pc_k",
                                combine(lane(soa, "pc_stack[pc_lvl]", "pc_k"), acc("pc_k"))),
        "push_level": set_lane(soa, "pc_stack[pc_lvl]", "pc_k", acc("pc_k")),
        "pair_lanes": set_lane(soa, "pc_acc", "pc_k",
                               combine(acc("pc_k"), acc("pc_k + pc_step"))),
        "first_lane": acc("0"),
    }


def comma_tail(names):
    """``", a, b"`` for ``["a", "b"]``: parameters or arguments after a first one."""
    return "".join(", " + name for name in names)
