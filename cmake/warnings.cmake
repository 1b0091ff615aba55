# The project's warning set: one INTERFACE target, slublab_warnings, used by
# every target of the native tree (CMakeLists.txt) and of the WebAssembly
# tree (wasm/CMakeLists.txt) (STYLE.md, Build).
include(CheckCCompilerFlag)
add_library(slublab_warnings INTERFACE)
target_compile_options(slublab_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wold-style-definition -Wwrite-strings -Wcast-qual
    -Wcast-align -Wpointer-arith -Wundef -Wformat=2 -Wvla -Wdouble-promotion
    -Wconversion -fno-common)
if(SLUBLAB_WERROR)
    target_compile_options(slublab_warnings INTERFACE -Werror)
endif()
# clang-only flags; gcc would reject them.
foreach(flag IN ITEMS -Wcomma -Wreserved-identifier)
    string(MAKE_C_IDENTIFIER "HAVE${flag}" var)
    check_c_compiler_flag(${flag} ${var})
    if(${var})
        target_compile_options(slublab_warnings INTERFACE ${flag})
    endif()
endforeach()
