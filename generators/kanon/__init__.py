"""k-anonymity generators (``spec/generators.md`` §6.0–6.3): ``kanon_fulldomain`` (full-domain
generalisation, OLA), ``mondrian`` (strict multidimensional partitioning) and
``data_anonymizer`` (rule-based anonymisation with column profiling, DSTA's Data Anonymizer).

Modules: ``hierarchies`` (generalisation hierarchies, label decoding), ``equivalence``
(equivalence classes, information loss), ``lattice`` (full-domain lattice, OLA),
``release`` (released table and reports), ``params`` (parameter checks), ``fulldomain``,
``mondrian``, ``profiling`` (column property inference), ``data_anonymizer``.
"""
