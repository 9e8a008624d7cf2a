"""The primitives both halves share: locations, codes and findings (model), every enumeration
(kinds), per-file facts, the spec's constants, the config and run settings, exit-2 errors, source
text and the reading of a prompt."""
