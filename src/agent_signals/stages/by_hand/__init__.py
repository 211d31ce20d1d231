"""What people do to signals outside a run: the user's own signals (add, edit, delete, forget) and a
reviewer's decisions on the candidates held for review."""
