"""The offline rules of each kind of statement: habits, biography, negations, personal facts, preferences,
relations, roles, standing requests and workplace forms."""
