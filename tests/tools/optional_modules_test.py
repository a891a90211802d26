#!/usr/bin/env python3
"""The optional modules: what a run loads, seen through the dynamic loader's own trace.

Usage: optional_modules_test.py HYBRIDSIM LIBHYBRIDSIM MODULES_DIR IMPORT_DATA_DIR

libsdformat, urdfdom, tinyxml2, HDF5 and OpenMPI live in modules (libhybridsim_import.so,
libhybridsim_hdf5.so, libhybridsim_mpi.so) that a run loads only when it needs them. Checked:
  - neither the CLI nor the shared library names any of those libraries as a dependency;
  - a YAML scene runs without loading a module (glibc's LD_DEBUG=files lists every object loaded);
  - an SDFormat and a URDF file load the import module, and libsdformat with it; an HDF5
    trajectory loads the hdf5 module;
  - `hybridsim --version` names the modules it would load;
  - without the modules (a copy of the CLI whose search finds none) a YAML scene still runs and an
    import stops with status 2 and a message that names the module and the folders searched.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HYBRIDSIM, LIBRARY, MODULES, DATA = sys.argv[1:5]
WORK = tempfile.mkdtemp(prefix="hybridsim_modules_test_")
HEAVY = ("libsdformat", "liburdfdom", "libtinyxml2", "libhdf5", "libmpi", "libignition")


def check(condition, message):
    if not condition:
        print("FAIL: " + message)
        sys.exit(1)
    print("ok: " + message)


def needed(binary):
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True,
                             check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)


def loaded(*args, program=HYBRIDSIM, expect=0):
    """The objects the dynamic loader maps while `program ARGS` runs, and its stderr."""
    env = dict(os.environ, LD_DEBUG="files", LD_DEBUG_OUTPUT=os.path.join(WORK, "ld"))
    for name in os.listdir(WORK):
        if name.startswith("ld."):
            os.remove(os.path.join(WORK, name))
    result = subprocess.run([program, *args], capture_output=True, text=True, env=env, cwd=WORK,
                            timeout=300)
    check(result.returncode == expect,
          f"{os.path.basename(program)} {' '.join(args)} exits {expect} ({result.returncode}: "
          f"{result.stderr.strip()[:300]})")
    objects = set()
    for name in os.listdir(WORK):
        if name.startswith("ld."):
            with open(os.path.join(WORK, name)) as trace:
                objects |= set(re.findall(r"file=(\S+)\s+\[0\];\s+(?:needed|dynamically loaded)",
                                          trace.read()))
    return {os.path.basename(o) for o in objects}, result.stderr


for binary in (HYBRIDSIM, LIBRARY):
    heavy = [n for n in needed(binary) if n.startswith(HEAVY)]
    check(not heavy, f"{os.path.basename(binary)} needs none of {HEAVY} ({heavy})")

objects, _ = loaded("run", "bouncing_sphere", "--quiet", "--stop-time", "0.01")
check(objects and not any(o.startswith(("libhybridsim_",) + HEAVY) for o in objects),
      f"a YAML scene loads no module ({len(objects)} objects)")

for scene in ("pendulum.urdf", "tricycles_uphill.sdf"):
    objects, _ = loaded("run", os.path.join(DATA, scene), "--quiet", "--stop-time", "0.001")
    check("libhybridsim_import.so" in objects, f"{scene} loads the import module")
    check("libhybridsim_hdf5.so" not in objects and "libhybridsim_mpi.so" not in objects,
          f"{scene} loads no other module")
check(any(o.startswith("libsdformat") for o in objects), "and the SDFormat file libsdformat")

objects, _ = loaded("run", "bouncing_sphere", "--quiet", "--stop-time", "0.01",
                    "--trajectory", os.path.join(WORK, "t.h5"))
check("libhybridsim_hdf5.so" in objects and any(o.startswith("libhdf5") for o in objects),
      "an HDF5 trajectory loads the hdf5 module and libhdf5")
check("libhybridsim_import.so" not in objects, "and not the import module")
check(os.path.getsize(os.path.join(WORK, "t.h5")) > 0, "the HDF5 file is written")

version = subprocess.run([HYBRIDSIM, "--version"], capture_output=True, text=True, check=True)
lines = version.stdout.splitlines()
check(re.fullmatch(r"hybridsim \d+\.\d+\.\d+", lines[0]) is not None, "--version's first line")
for module in ("import", "hdf5"):
    expected = f"module {module}: {os.path.realpath(os.path.join(MODULES, f'libhybridsim_{module}.so'))}"
    check(expected in [re.sub(r": (/.*)", lambda m: ": " + os.path.realpath(m.group(1)), l)
                       for l in lines], f"--version names {expected}")

# A copy of the CLI in a folder of its own finds no module beside it; the build tree's folder is
# hidden by running the copy with the modules renamed away for the moment of the run.
lonely = os.path.join(WORK, "bin", "hybridsim")
os.makedirs(os.path.dirname(lonely))
shutil.copy2(HYBRIDSIM, lonely)
hidden = MODULES + ".hidden_by_optional_modules_test"
os.rename(MODULES, hidden)
try:
    objects, _ = loaded("run", "bouncing_sphere", "--quiet", "--stop-time", "0.01", program=lonely)
    _, stderr = loaded("run", os.path.join(DATA, "pendulum.urdf"), "--quiet", program=lonely,
                       expect=2)
finally:
    os.rename(hidden, MODULES)
check("libhybridsim_import.so" in stderr and "not installed" in stderr and
      os.path.basename(MODULES) in stderr and "pendulum.urdf" in stderr,
      f"the message names the file, the module and the folders searched: {stderr.strip()}")
shutil.rmtree(WORK)
