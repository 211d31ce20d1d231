-- The failing rows of one compiled dbt data test; zero means it passed.
select count(*) from ({test}) as failures
