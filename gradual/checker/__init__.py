"""The checker: name resolution, inference with graded consistency, call sites, elaboration.

`driver` runs the phases (parse, resolve names, infer, elaborate) and holds `CheckResult`;
`names` resolves names and orders definitions callees first; `infer` checks definitions to a
fixpoint; `site` runs an operator's signature or rule at one call over symbolic dims and builds
the casts a call needs; `contracts` and `references` handle function- and reference-typed
flows; `elaboration` writes the checked program with its runtime checks.
"""
