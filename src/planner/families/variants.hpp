// SPDX-License-Identifier: Apache-2.0
// Each family's kernel variants (planner/kernel_variants.hpp): its steps for every
// configuration its chooser can return, on small shapes chosen to reach each one, at
// `at` (a site whole or split, at the index width of the set). Each is defined in its
// family's file; the registry (families/registry.cpp) lists them.
#pragma once

#include <vector>

#include "planner/device_profile.hpp"
#include "planner/launch_plan.hpp"

namespace ipt::planner {

using FamilyVariants = void (*)(const DeviceProfile& device, const StepSite& at,
                                std::vector<Step>& out);

// The family's variants function, or nullptr for a family that no default plan launches
// for every shape (PTTWAC: forced plans only; scale: imatcopy's transforms, which depend
// on the scalar type).
FamilyVariants family_variants(Family family);

// The variants functions of every family that has one, in the registry's order.
std::vector<FamilyVariants> every_family_variants();

void square_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out);
void bs_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out);
void soa_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out);
void onchip_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out);
void restride_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out);
void copy_variants(const DeviceProfile& device, const StepSite& at, std::vector<Step>& out);

}  // namespace ipt::planner
