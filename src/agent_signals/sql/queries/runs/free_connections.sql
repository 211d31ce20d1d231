-- The connections the server can still give a client that is not a superuser: max_connections less the
-- reserved ones and the client backends open now (this one among them).
select current_setting('max_connections')::int
       - current_setting('superuser_reserved_connections')::int
       - (select count(*) from pg_stat_activity where backend_type = 'client backend')::int
