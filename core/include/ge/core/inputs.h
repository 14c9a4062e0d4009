// ge/core/inputs.h — inputs for runs that are given none (`gec run` without --inputs, `gec
// profile`, the Python module's ge.profile).
#pragma once
#include <cstdint>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/tensor.h"

namespace ge::core {

/// One tensor per graph input (graph-input order), seeded with `seed` (std::mt19937): floats
/// uniform in [-1, 1), integers in {0, 1}, booleans; other dtypes bytes in {0, 1}.
std::vector<Tensor> random_inputs(const Graph& g, uint32_t seed);

}  // namespace ge::core
