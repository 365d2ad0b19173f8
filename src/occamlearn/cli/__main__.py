from occamlearn.cli import run

run()
