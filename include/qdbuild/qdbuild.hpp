// The whole embedding API of the qdbuild builder (docs/embedding.md).
#pragma once

#include "qdbuild/build.hpp"        // IWYU pragma: export
#include "qdbuild/build_types.hpp"  // IWYU pragma: export
#include "qdbuild/check.hpp"        // IWYU pragma: export
#include "qdbuild/diagnostic.hpp"   // IWYU pragma: export
#include "qdbuild/explain.hpp"      // IWYU pragma: export
#include "qdbuild/project.hpp"      // IWYU pragma: export
#include "qdbuild/watch.hpp"        // IWYU pragma: export
