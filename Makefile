# OpenBench builds an engine with `make -j EXE=<name>` (and CC= or CXX= of its compiler, which a
# Python engine does not use, and EVALFILE=<network> when the test has one) and keeps only the file
# <name>: scripts/openbench_build.py makes it a launcher of a copy of this source with its
# environment and compiled kernels, and of the network if one is given (docs/openbench.md).
EXE ?= brudno
PYTHON ?= python3
EVALFILE ?=

.PHONY: all $(EXE)
all: $(EXE)

$(EXE):
	$(PYTHON) scripts/openbench_build.py "$(EXE)" $(if $(EVALFILE),--evalfile "$(EVALFILE)")
