// `ast.dump(tree, include_attributes=True)` of Python 3.12, byte for byte.
#pragma once

#include <string>

#include "syntax/ast_nodes.hpp"

namespace qd::syntax::ast {

std::string dump(const Mod* module);

}  // namespace qd::syntax::ast
