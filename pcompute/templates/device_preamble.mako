<%page args="device"/>\
// The device dialect in macros (one text for OpenCL C and CUDA C): kernels,
// helper functions, memory spaces, barriers, work-item ids (as pc_idx, which
// the including template defines) and fixed-width integer names.
%for line in device.extensions:
${line}
%endfor
%for name, definition in device.macros:
#define ${name} ${definition}
%endfor
%for ctype, name in device.typedefs:
typedef ${ctype} ${name};
%endfor
