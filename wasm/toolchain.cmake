# clang 14 for wasm32-wasi with Debian 12's wasi-libc (docs/wasm.md).
# -nostdlibinc keeps /usr/include (glibc's headers) out: Debian's clang
# looks there for every target; the libc headers are wasi-libc's alone.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
find_program(CMAKE_C_COMPILER NAMES clang-14 clang REQUIRED)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_C_FLAGS_INIT "-nostdlibinc -isystem /usr/include/wasm32-wasi")
# (the link step ignores it)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wno-unused-command-line-argument")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
