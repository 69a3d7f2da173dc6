"""quadrants.lang.exception: the exception classes of Quadrants' compiler the stand-in raises
where it reproduces one of its messages (the hierarchy of quadrants/lang/exception.py: a
QuadrantsSyntaxError is a SyntaxError, a QuadrantsTypeError a TypeError)."""


class QuadrantsCompilationError(Exception):
    """Base class for all compilation exceptions."""


class QuadrantsSyntaxError(QuadrantsCompilationError, SyntaxError):
    pass


class QuadrantsNameError(QuadrantsCompilationError, NameError):
    pass


class QuadrantsTypeError(QuadrantsCompilationError, TypeError):
    pass


__all__ = ["QuadrantsCompilationError", "QuadrantsNameError", "QuadrantsSyntaxError",
           "QuadrantsTypeError"]
