// The parts of hybridsim that need large libraries are shared modules loaded on first use, so
// that a run that does not use them does not pay for loading them: libsdformat and libignition-
// math compile regular expressions in their static initialisers (about 20 ms), and with urdfdom,
// HDF5 and OpenMPI they bring in 45 of the program's 66 shared libraries. The modules:
//   import  SDFormat, URDF and MJCF files (libsdformat, urdfdom, tinyxml2)
//   hdf5    HDF5 trajectories (libhdf5)
//   mpi     `hybridsim batch` under mpirun (OpenMPI)
// A module is libhybridsim_NAME.so, installed in LIBDIR/hybridsim and found from the binary that
// holds this code, as the catalog is; the build tree's copy is the fallback.
#pragma once

#include <filesystem>
#include <string>

namespace hybridsim {

// Every module exports this C function; it returns the version the module was built with, which
// must be the loader's own (a module is built from the same sources as the code that loads it:
// the two pass C++ objects to each other).
inline constexpr const char* kModuleVersionSymbol = "hybridsim_module_version";

// The address of `symbol` in module `name` (loaded once, never unloaded). InputError naming the
// module, the directories searched and the loader's message when the module is missing, does not
// load, is of another version or lacks the symbol; `purpose` says what needed it ("SDFormat
// import").
void* optional_module_symbol(const std::string& name, const char* symbol, const char* purpose);

// The folder of the binary that holds hybridsim's code (libhybridsim.so, a statically linked
// program, the Python extension), from which installed files are found; empty if unknown.
std::filesystem::path code_binary_directory();

// The file module `name` would be loaded from, without loading it; empty when none is found.
std::string optional_module_path(const std::string& name);

// Typed: a pointer to the module's function.
template <typename Function>
Function* optional_module_function(const std::string& name, const char* symbol,
                                   const char* purpose) {
  return reinterpret_cast<Function*>(optional_module_symbol(name, symbol, purpose));
}

}  // namespace hybridsim
