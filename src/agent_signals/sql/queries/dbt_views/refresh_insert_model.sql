-- The touched users' new rows of one incremental context model: the model's SQL as dbt compiled it
-- (scoped to the run's touched users), into the model's relation, column by column.
insert into {relation} ({columns})
select {columns} from ({model}) as compiled
