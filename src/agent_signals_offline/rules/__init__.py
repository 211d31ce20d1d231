"""The offline model's extraction rules, split by kind of statement. `extract.extract` is the entry point;
it splits a message into clauses (clauses), refuses what is never a durable self-statement (refusals), and
reads each clause (statement) through the ordered statement patterns (patterns) of kinds/: roles, life,
personal, habits and preferences, and the forms of relations, negations, the workplace and standing requests. Shared
regex fragments live in vocabulary, word lists in word_lists, the wording of content in phrasing."""
