/* SPDX-License-Identifier: Apache-2.0 */
/* The public header compiled as C99 with warnings on, and every entry point called with
 * arguments that need no device: C users must be able to include and link libipt. */
#include <ipt/ipt.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  size_t bytes = 0;
  int failures = 0;
  if (ipt_version() != IPT_VERSION) ++failures;
  if (strlen(ipt_version_string()) == 0) ++failures;
  if (ipt_transpose_f32(NULL, NULL, 0, 4, 4, 0, NULL, NULL) != IPT_INVALID_COMMAND_QUEUE)
    ++failures;
  if (ipt_transpose_f64(NULL, NULL, 0, 4, 4, 0, NULL, NULL) != IPT_INVALID_COMMAND_QUEUE)
    ++failures;
  if (ipt_transpose(NULL, NULL, 0, 4, 4, 0, NULL, NULL, 4) != IPT_INVALID_COMMAND_QUEUE) ++failures;
  if (ipt_padded_size(NULL, 4, 4, 4, &bytes) != IPT_INVALID_DEVICE) ++failures;
  if (strstr(ipt_last_error_message(), "ipt_padded_size") == NULL) ++failures;
  if (ipt_clear_cache() != IPT_SUCCESS) ++failures;
  {
    /* Host matrices on the CPU need no device. */
    float m[2][3] = {{1, 2, 3}, {4, 5, 6}};
    const float t[6] = {1, 4, 2, 5, 3, 6};
    ipt_host_options options = {IPT_HOST_CPU, 2, IPT_HOST_PIN_AUTO, 0};
    if (ipt_transpose_host_f32(NULL, &m[0][0], 2, 3, &options) != IPT_SUCCESS) ++failures;
    if (memcmp(&m[0][0], t, sizeof t) != 0) ++failures;
    if (ipt_transpose_host_f32(NULL, NULL, 2, 3, NULL) != IPT_INVALID_VALUE) ++failures;
  }
  if (strcmp(ipt_sequence_name(IPT_SEQUENCE_2_1), "2.1") != 0) ++failures;
  if (strcmp(ipt_sequence_name((ipt_sequence)-7), "unknown") != 0) ++failures;
  printf("%s\n", ipt_status_string(IPT_MATRIX_TOO_LARGE));
  if (failures != 0) printf("c_compliance: %d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
