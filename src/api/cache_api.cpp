// Exported control of the program cache.
#include "api/guard.hpp"
#include "runtime/program_cache.hpp"

extern "C" ipt_status ipt_clear_cache(void) {
  return ipt::api::guarded("ipt_clear_cache", [] { ipt::runtime::clear_program_cache(); });
}
