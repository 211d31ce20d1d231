insert into ops.schema_migrations (version, name, checksum)
values (%(version)s, %(name)s, %(checksum)s)
