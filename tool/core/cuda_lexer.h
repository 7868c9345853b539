#pragma once
// Former name of core/source_lexer.h (core files may not include a "cuda" header name, see
// tests/check_core_headers.cmake); include core/source_lexer.h instead.
#include "core/source_lexer.h"
