// Names of token kinds (CPython's token names where one exists, for dumps and messages).
#include "syntax/token.hpp"

namespace qd::syntax {

const char* token_kind_name(TokenKind k) {
  switch (k) {
    case TokenKind::EndMarker: return "ENDMARKER";
    case TokenKind::Name: return "NAME";
    case TokenKind::Number: return "NUMBER";
    case TokenKind::String: return "STRING";
    case TokenKind::FStringStart: return "FSTRING_START";
    case TokenKind::FStringMiddle: return "FSTRING_MIDDLE";
    case TokenKind::FStringEnd: return "FSTRING_END";
    case TokenKind::Newline: return "NEWLINE";
    case TokenKind::Indent: return "INDENT";
    case TokenKind::Dedent: return "DEDENT";
    case TokenKind::LPar: return "LPAR";
    case TokenKind::RPar: return "RPAR";
    case TokenKind::LSqb: return "LSQB";
    case TokenKind::RSqb: return "RSQB";
    case TokenKind::LBrace: return "LBRACE";
    case TokenKind::RBrace: return "RBRACE";
    case TokenKind::Colon: return "COLON";
    case TokenKind::Comma: return "COMMA";
    case TokenKind::Semi: return "SEMI";
    case TokenKind::Dot: return "DOT";
    case TokenKind::Ellipsis: return "ELLIPSIS";
    case TokenKind::Arrow: return "RARROW";
    case TokenKind::ColonEqual: return "COLONEQUAL";
    case TokenKind::At: return "AT";
    case TokenKind::AtEqual: return "ATEQUAL";
    case TokenKind::Plus: return "PLUS";
    case TokenKind::Minus: return "MINUS";
    case TokenKind::Star: return "STAR";
    case TokenKind::Slash: return "SLASH";
    case TokenKind::VBar: return "VBAR";
    case TokenKind::Amper: return "AMPER";
    case TokenKind::Less: return "LESS";
    case TokenKind::Greater: return "GREATER";
    case TokenKind::Equal: return "EQUAL";
    case TokenKind::Percent: return "PERCENT";
    case TokenKind::EqEqual: return "EQEQUAL";
    case TokenKind::NotEqual: return "NOTEQUAL";
    case TokenKind::LessEqual: return "LESSEQUAL";
    case TokenKind::GreaterEqual: return "GREATEREQUAL";
    case TokenKind::Tilde: return "TILDE";
    case TokenKind::Circumflex: return "CIRCUMFLEX";
    case TokenKind::LeftShift: return "LEFTSHIFT";
    case TokenKind::RightShift: return "RIGHTSHIFT";
    case TokenKind::DoubleStar: return "DOUBLESTAR";
    case TokenKind::PlusEqual: return "PLUSEQUAL";
    case TokenKind::MinEqual: return "MINEQUAL";
    case TokenKind::StarEqual: return "STAREQUAL";
    case TokenKind::SlashEqual: return "SLASHEQUAL";
    case TokenKind::PercentEqual: return "PERCENTEQUAL";
    case TokenKind::AmperEqual: return "AMPEREQUAL";
    case TokenKind::VBarEqual: return "VBAREQUAL";
    case TokenKind::CircumflexEqual: return "CIRCUMFLEXEQUAL";
    case TokenKind::LeftShiftEqual: return "LEFTSHIFTEQUAL";
    case TokenKind::RightShiftEqual: return "RIGHTSHIFTEQUAL";
    case TokenKind::DoubleStarEqual: return "DOUBLESTAREQUAL";
    case TokenKind::DoubleSlash: return "DOUBLESLASH";
    case TokenKind::DoubleSlashEqual: return "DOUBLESLASHEQUAL";
    case TokenKind::Exclamation: return "EXCLAMATION";
    case TokenKind::KwFalse: return "'False'";
    case TokenKind::KwNone: return "'None'";
    case TokenKind::KwTrue: return "'True'";
    case TokenKind::KwAnd: return "'and'";
    case TokenKind::KwAs: return "'as'";
    case TokenKind::KwAssert: return "'assert'";
    case TokenKind::KwAsync: return "'async'";
    case TokenKind::KwAwait: return "'await'";
    case TokenKind::KwBreak: return "'break'";
    case TokenKind::KwClass: return "'class'";
    case TokenKind::KwContinue: return "'continue'";
    case TokenKind::KwDef: return "'def'";
    case TokenKind::KwDel: return "'del'";
    case TokenKind::KwElif: return "'elif'";
    case TokenKind::KwElse: return "'else'";
    case TokenKind::KwExcept: return "'except'";
    case TokenKind::KwFinally: return "'finally'";
    case TokenKind::KwFor: return "'for'";
    case TokenKind::KwFrom: return "'from'";
    case TokenKind::KwGlobal: return "'global'";
    case TokenKind::KwIf: return "'if'";
    case TokenKind::KwImport: return "'import'";
    case TokenKind::KwIn: return "'in'";
    case TokenKind::KwIs: return "'is'";
    case TokenKind::KwLambda: return "'lambda'";
    case TokenKind::KwNonlocal: return "'nonlocal'";
    case TokenKind::KwNot: return "'not'";
    case TokenKind::KwOr: return "'or'";
    case TokenKind::KwPass: return "'pass'";
    case TokenKind::KwRaise: return "'raise'";
    case TokenKind::KwReturn: return "'return'";
    case TokenKind::KwTry: return "'try'";
    case TokenKind::KwWhile: return "'while'";
    case TokenKind::KwWith: return "'with'";
    case TokenKind::KwYield: return "'yield'";
    case TokenKind::Error: return "ERRORTOKEN";
  }
  return "?";
}

}  // namespace qd::syntax
