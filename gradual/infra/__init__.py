"""Infrastructure every layer may use: the user cache, nested scopes, deep recursion, argument checks.

Nothing here knows about programs, types or operators.
"""
