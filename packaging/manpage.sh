#!/bin/sh
# Writes the manual page poslab.1 from `poslab --help`, at build time, so that the page and the
# help text cannot drift apart: the synopsis, the commands, the sessions and every state option
# are the help's own lines; only the sections the help has no place for (environment, files) are
# written here.
#   packaging/manpage.sh BUILD/poslab OUT.1
set -eu
poslab=$1
out=$2

help=$("$poslab" --help)
version=$("$poslab" --version | sed 's/^poslab //')

{
  printf '%s\n' ".\\\" -*- coding: UTF-8 -*-"
  printf '%s\n' ".\\\" Written by packaging/manpage.sh from \`poslab --help\`: change the help, not this page."
  printf '.TH POSLAB 1 "" "PosLab %s" "User Commands"\n' "$version"
  printf '%s\n' "$help" | awk '
    # roff: a backslash is \e, a minus that must stay a minus (options) is \-, and a line must not
    # start with a control character. An ellipsis becomes three dots: groff has no glyph for it in
    # a terminal without UTF-8.
    function roff(s) {
      gsub(/\\/, "\\e", s)
      gsub(/-/, "\\-", s)
      gsub(/…/, "...", s)
      if (s ~ /^[.'"'"']/) s = "\\&" s
      return s
    }
    function bold(s) { s = roff(s); gsub(/"/, "\\(dq", s); return ".B \"" s "\"" }
    function strip(s) { sub(/^ +/, "", s); return s }
    NR == 1 {
      # "PosLab 0.1.0 — a lab for …": the NAME line.
      summary = $0
      sub(/^[^—]*— */, "", summary)
      print ".SH NAME"
      print "poslab \\- " roff(summary)
      next
    }
    /^usage:/ { section = "usage"; print ".SH SYNOPSIS"; print ".nf"; next }
    /^sessions:/ {
      if (section == "usage") close_usage()
      section = "sessions"
      print ".SH SESSIONS"
      line = $0; sub(/^sessions: */, "", line)
      print roff(line)
      next
    }
    /^state options:/ { section = "state"; print ".SH \"STATE OPTIONS\""; next }
    /^$/ { next }
    section == "usage" {
      # A command starts with "  poslab", continues with synopsis lines indented nine spaces, is
      # described by lines indented six, and lists its flags on lines indented eight ("--flag
      # VALUE", then what it does after two spaces or more).
      if ($0 ~ /^  poslab/) { synopsis[++n] = strip($0); commands[n] = 1; descr[n] = ""; flags[n] = 0; next }
      if ($0 ~ /^         / && descr[n] == "" && flags[n] == 0) {
        synopsis[++n] = strip($0); commands[n] = 0; descr[n] = ""; flags[n] = 0; next
      }
      if ($0 ~ /^        --/) {
        line = strip($0)
        split_at = match(line, /  +/)
        k = ++flags[n]
        flag[n, k] = split_at ? substr(line, 1, split_at - 1) : line
        flag_help[n, k] = split_at ? strip(substr(line, split_at)) : ""
        next
      }
      descr[n] = descr[n] (descr[n] == "" ? "" : " ") strip($0)
      next
    }
    section == "sessions" { print roff(strip($0)); next }
    section == "state" {
      # "  --option VALUE    what it does": the option, then its text after two or more spaces.
      line = strip($0)
      split_at = match(line, /  +/)
      if (split_at == 0) { print roff(line); next }
      print ".TP"
      print bold(substr(line, 1, split_at - 1))
      print roff(strip(substr(line, split_at)))
      next
    }
    function close_usage(   i, k) {
      # The synopsis lists every command; COMMANDS repeats each with what it does and its flags.
      for (i = 1; i <= n; ++i) print (commands[i] ? "" : "       ") roff(synopsis[i])
      print ".fi"
      print ".SH DESCRIPTION"
      print "PosLab shows how positional encodings change what transformer attention sees. Without a"
      print "command, \\fBposlab\\fP opens its window; a plain \\fBposlab\\fP starts from the last session"
      print "and saves it on exit. The other commands need no window and no X server."
      print ".SH COMMANDS"
      for (i = 1; i <= n; ++i) {
        if (commands[i] && (i == 1 || descr[i - 1] != "" || flags[i - 1] > 0 || !commands[i - 1])) print ".PP"
        print bold(synopsis[i])
        print ".br"
        if (descr[i] == "" && flags[i] == 0) continue
        print ".RS"
        if (descr[i] != "") print roff(descr[i])
        for (k = 1; k <= flags[i]; ++k) { print ".TP"; print bold(flag[i, k]); print roff(flag_help[i, k]) }
        print ".RE"
      }
      section = ""
    }
  '
  cat <<'EOF'
.SH ENVIRONMENT
.TP
.B POSLAB_ASSETS
A folder to take the default embeddings and sample sentences from, before the folder next to the
binary, the installed data folder (\fI../share/poslab\fP from the binary) and the source tree.
.TP
.B POSLAB_SHADER_DIR
A folder of compute shaders to use instead of those built into the binary.
.TP
.B XDG_CONFIG_HOME
Where PosLab keeps what it remembers (default \fI~/.config\fP).
.TP
.B HF_HUB_CACHE, HF_HOME
Hugging Face's cache, shared with the Python tools: \fI$HF_HUB_CACHE\fP, else \fI$HF_HOME/hub\fP,
else \fI~/.cache/huggingface/hub\fP. A \fB\-\-model ORG/NAME\fP is looked for there first.
.TP
.B HF_ENDPOINT
Where models named \fBORG/NAME\fP are downloaded from (default \fIhttps://huggingface.co\fP).
.TP
.B HF_TOKEN
The access token for gated and private models; else the file \fI$HF_HOME/token\fP. Never printed,
and never sent to another host or port than the endpoint's.
.TP
.B HF_HUB_OFFLINE
1: models named \fBORG/NAME\fP come from the cache only, with no request.
.SH FILES
.TP
.I $XDG_CONFIG_HOME/poslab/last\-session.json
The state a plain \fBposlab\fP starts from and saves on exit.
.TP
.I $XDG_CONFIG_HOME/poslab/recent.txt
The embeddings files and model folders opened lately.
.TP
.I $XDG_CONFIG_HOME/poslab/settings.json
The GUI's settings: \fBui_scale\fP, the UI scale menu's choice (0 follows the monitor).
.TP
.I share/poslab/
Under the installation prefix (\fI/usr\fP for the Debian package): the default embeddings
(GloVe 6B, 10,008 words, 100 dimensions) and the sample sentences.
.SH SEE ALSO
The README of PosLab's source tree explains every view, option and CSV column.
EOF
} > "$out.tmp"
mv "$out.tmp" "$out"
