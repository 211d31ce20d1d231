"""Every SQL call: connections, migrations, the source contract, the runs ledger, load, the demo data."""
