"""The public surface: every name in __all__ exists, and Compyle's module paths work."""
import importlib

import pytest

import pcompute
import pcompute.api as api


def test_all_names_exist():
    for name in api.__all__:
        assert hasattr(pcompute, name), name


@pytest.mark.parametrize("module, names", [
    ("pcompute.api", ["Elementwise", "Reduction", "annotate", "declare", "wrap",
                      "get_config", "Kernel", "LocalMem", "Cython", "profile",
                      "get_profile_info", "print_profile", "KnownType"]),
    ("pcompute.config", ["Config", "get_config", "set_config", "use_config"]),
    ("pcompute.types", ["annotate", "declare", "KnownType", "int_", "long_", "uint",
                        "ulong", "float_", "double", "gintp", "gdoublep", "gfloatp",
                        "glongp", "guintp", "gulongp", "lintp", "lfloatp", "doublep"]),
    ("pcompute.array", ["Array", "wrap", "zeros", "ones", "empty", "zeros_like",
                        "ones_like", "empty_like", "arange", "linspace", "to_device",
                        "get_backend"]),
    ("pcompute.parallel", ["Elementwise", "Reduction", "Scan", "elementwise", "serial"]),
    ("pcompute.sort", ["radix_sort", "sort_by_keys", "argsort"]),
    ("pcompute.array", ["sort_by_keys", "argsort", "align", "take", "diff", "trapz",
                        "minimum", "maximum", "update_minmax_gpu", "sum", "dot",
                        "cumsum"]),
    ("pcompute.low_level", ["Kernel", "LocalMem", "Cython", "LID_0", "GID_0", "LDIM_0",
                            "GDIM_0", "local_barrier", "atomic_inc", "atomic_dec",
                            "cast", "address", "prange", "parallel", "nogil", "Extern"]),
    ("pcompute.template", ["Template"]),
    ("pcompute.profile", ["profile", "profile_ctx", "named_profile", "get_profile_info",
                          "print_profile", "profile2csv", "profile_kernel"]),
    ("pcompute.utils", ["ArgumentParser"]),
])
def test_compyle_module_paths(module, names):
    mod = importlib.import_module(module)
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, "%s lacks %s" % (module, missing)


def test_profile_module_is_not_shadowed():
    import pcompute.profile as prof
    assert prof.__name__ == "pcompute.profile"
