# function-length.awk - the length of every function of kernel-style C
# files, one line each: FILE <tab> FUNCTION <tab> LENGTH <tab> LINE.
#
# A function starts at a "{" alone at column 0 whose line before ends its
# declarator with ")"; it ends at the next "}" at column 0. LENGTH counts
# the lines between the two braces; LINE is that of the "{". The name is
# the identifier before the first "(" of the declarator, read back from
# the "{" to the line after the last blank, preprocessor, comment or
# top-level ";" / "}" line (so "static int\nfoo(int a,\n    int b)" is
# foo). Used by tests/lint/function-length.sh.

function flush() { decl = ""; }

function name_of(text,    t) {
	t = text
	gsub(/__attribute__[ \t]*\(\([^)]*\)\)/, "", t)
	if (!match(t, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/))
		return "?"
	t = substr(t, RSTART, RLENGTH)
	sub(/[ \t]*\($/, "", t)
	return t
}

FNR == 1 { infn = 0; flush(); prev = "" }

infn {
	if ($0 ~ /^}/) {
		printf "%s\t%s\t%d\t%d\n", FILENAME, fname, FNR - start - 1, start
		infn = 0
		flush()
	}
	next
}

/^\{/ && prev ~ /\)[ \t]*$/ {
	infn = 1
	start = FNR
	fname = name_of(decl)
	next
}

/^[ \t]*$/ || /^#/ || /^[ \t]*\/?\*/ || /\*\/[ \t]*$/ || /;[ \t]*$/ || /^}/ || /^\/\// {
	flush()
	prev = $0
	next
}

{
	decl = decl " " $0
	prev = $0
}
