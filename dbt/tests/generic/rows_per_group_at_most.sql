{#- No group (by `group_by`) has more than `max_rows` rows matching `row_filter`. -#}
{% test rows_per_group_at_most(model, group_by, max_rows, row_filter='true') %}
select {{ group_by | join(', ') }}, count(*) as n
from {{ model }}
where {{ row_filter }}
group by {{ group_by | join(', ') }}
having count(*) > {{ max_rows }}
{% endtest %}
