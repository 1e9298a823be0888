"""Vendor Compyle's behaviour tests and examples, with only the imports changed.

usage: python tools/vendor_compyle.py [compyle-X.Y.Z.tar.gz]

Without an argument the source distribution is fetched with
``pip download --no-deps --no-binary :all: compyle``.  The files land in

* ``tests/compyle_suite/``: ``compyle/tests/<module>.py`` for the modules in
  :data:`TEST_MODULES` (``test_jit`` only because ``test_parallel`` imports a
  helper from it);
* ``tests/compyle_examples/``: the example programs in :data:`EXAMPLES`;

each with Compyle's licence (``LICENSE.txt``) and a ``VENDORED.json`` naming the
distribution and giving, per file, the SHA-256 of the original and the original
text of every line the rewrite changed.  The rewrite touches
import statements only: ``compyle`` becomes ``pcompute`` and the relative
imports of the package (``from ..config import``) become absolute
(``from pcompute.config import``).  :func:`rewrite` is the whole rule; the
test ``tests/test_compyle_vendored.py`` restores the originals from
``VENDORED.json``, checks their SHA-256 and that each changed line is what the
rule makes of its original.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TEST_MODULES = ("__init__", "test_parallel", "test_array", "test_config",
                "test_template", "test_low_level", "test_change_backend",
                "test_types", "test_profile", "test_utils", "test_jit")

EXAMPLES = ("axpb.py", "julia_set.py", "laplace.py", "vm_elementwise.py",
            "vm_kernel.py",
            "molecular_dynamics/md_simple.py", "molecular_dynamics/md_nnps.py",
            "molecular_dynamics/nnps.py", "molecular_dynamics/nnps_kernels.py",
            "molecular_dynamics/3D/md_simple.py", "molecular_dynamics/3D/md_nnps.py",
            "molecular_dynamics/3D/md_nnps_periodic.py",
            "molecular_dynamics/3D/nnps.py", "molecular_dynamics/3D/nnps_kernels.py")

# Import statements naming compyle, or relative imports out of compyle/tests.
_ABSOLUTE = re.compile(r"^(\s*)(from|import)(\s+)compyle\b")
_PARENT = re.compile(r"^(\s*)from(\s+)\.\.(\s|[A-Za-z_])")


def rewrite(line):
    """The one change made to a vendored line (identity for all other lines)."""
    m = _ABSOLUTE.match(line)
    if m:
        return "%s%s%spcompute%s" % (m.group(1), m.group(2), m.group(3), line[m.end():])
    m = _PARENT.match(line)
    if m:
        rest = line[m.end() - 1:]
        if rest.startswith(" "):
            return "%sfrom%spcompute%s" % (m.group(1), m.group(2), rest)
        return "%sfrom%spcompute.%s" % (m.group(1), m.group(2), rest)
    return line


def rewrite_text(text):
    return "".join(rewrite(line) for line in text.splitlines(True))


def _fetch(workdir):
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                    "--no-binary", ":all:", "-d", workdir, "compyle"], check=True)
    names = [n for n in os.listdir(workdir) if n.endswith(".tar.gz")]
    if len(names) != 1:
        raise SystemExit("expected one compyle sdist in %s, found %s" % (workdir, names))
    return os.path.join(workdir, names[0])


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(data)


def vendor(sdist):
    with open(sdist, "rb") as f:
        sdist_sha = hashlib.sha256(f.read()).hexdigest()
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]

        def read(member):
            return tar.extractfile("%s/%s" % (top, member)).read().decode("utf-8")

        licence = read("LICENSE.txt")
        groups = (
            ("tests/compyle_suite", "compyle/tests", ["%s.py" % m for m in TEST_MODULES]),
            ("tests/compyle_examples", "examples", list(EXAMPLES)),
        )
        for dest, origin, files in groups:
            record = {"distribution": os.path.basename(sdist), "sha256": sdist_sha,
                      "directory": origin + "/", "files": {}}
            for name in files:
                text = read("%s/%s" % (origin, name))
                changed = {}
                out = []
                for k, line in enumerate(text.splitlines(True), 1):
                    new = rewrite(line)
                    if new != line:
                        changed[str(k)] = line
                    out.append(new)
                record["files"][name] = {
                    "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                    "changed_lines": changed}
                _write(os.path.join(ROOT, dest, name), "".join(out))
            _write(os.path.join(ROOT, dest, "LICENSE.txt"), licence)
            _write(os.path.join(ROOT, dest, "VENDORED.json"),
                   json.dumps(record, indent=1, sort_keys=True) + "\n")
            print("vendored %d files into %s" % (len(files), dest))


def main(argv):
    if len(argv) > 1:
        vendor(argv[1])
        return
    with tempfile.TemporaryDirectory() as tmp:
        vendor(_fetch(tmp))


if __name__ == "__main__":
    main(sys.argv)
