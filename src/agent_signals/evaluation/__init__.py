"""eval and replay: measuring the pipeline on labelled data and against stored signals."""
