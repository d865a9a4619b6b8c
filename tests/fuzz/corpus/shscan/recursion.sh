f() { f; f; }; f
g() { X=$(g)$(g); }; g
h(){ set -- $@ $@ $@; shift 9999999999999999999; h $@ $@; }; h a
python t.py ${@:1:2} ${#} ${!A[@]} ${A[$((1/0))]} ${@:-1} `echo a` $(echo "$(printf %s x)")
