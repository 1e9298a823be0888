"""The source of the three-pass device scan (``templates/scan_device.mako``),
shared by the opencl and cuda Scans and the radix sort's scan of its digit
counts: the template's parameter lists are joined here, so that the
template pastes names only."""
from ..templates import render


def scan_device_source(params, T, complex_map, **variables):
    """The rendered ``scan_device`` template: ``params`` the user's kernel
    parameters (after ``pc_n, pc_chunk``), ``T`` the scanned C type,
    ``complex_map`` whether passes 1 and 3 also take the mapped values
    (``pc_mapped``); ``variables`` the template's other variables."""
    return render("scan_device", T=T, complex_map=complex_map,
                  extra="".join(", " + p for p in params),
                  mapped=", PC_GLOBAL %s* pc_mapped" % T if complex_map else "",
                  **variables)
