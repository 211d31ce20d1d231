"""The third-party engines behind the stages: litellm, dbt, Great Expectations, Prefect's server and process defaults."""
