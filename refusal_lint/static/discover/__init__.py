"""Which files a run reads: the walk (.gitignore), where their bytes come from (disk, git's
index, an editor's buffers), the projects of file arguments, and the roles the config gives."""
