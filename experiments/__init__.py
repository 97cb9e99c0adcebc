"""nesyworld.experiments: the top layer. The NovelGym evaluation protocol and its sweeps
(`protocol`), the other study kinds (`matrix`, `continual`, `lifelong`, `multiagent`,
`recovery`), benchmarks, the browser studio and the command line (`cli`); shipped study
configs live in configs/ and the paper's table 2 in data/."""
