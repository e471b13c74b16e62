// Internal control-flow helpers for Status / Result. Not part of the public API.
#pragma once

#include "engram/status.h"

#define ENGRAM_CONCAT_INNER(a, b) a##b
#define ENGRAM_CONCAT(a, b) ENGRAM_CONCAT_INNER(a, b)

#define ENGRAM_RETURN_IF_ERROR(expr)         \
  do {                                       \
    ::engram::Status _engram_st = (expr);    \
    if (!_engram_st.ok()) return _engram_st; \
  } while (0)

#define ENGRAM_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define ENGRAM_ASSIGN_OR_RETURN(lhs, expr) \
  ENGRAM_ASSIGN_OR_RETURN_IMPL(ENGRAM_CONCAT(_engram_res_, __LINE__), lhs, expr)
