# Writes a gzipped man page for one program from its own --help (and, for a program with
# subcommands, each subcommand's --help), so the pages can never drift from the programs.
# Run as a build step (app/CMakeLists.txt):
#   cmake -DPROGRAM=path -DNAME=limitscope-cli -DSUMMARY="..." -DVERSION=0.1.0
#         [-DSUBCOMMANDS=ON] -DSEE_ALSO="a;b" -DOUTPUT=limitscope-cli.1.gz -P manpage.cmake

# roff_text(OUT TEXT): TEXT as literal roff lines: backslashes escaped, hyphens as \-, and
# lines that roff would read as requests (leading . or ') made literal.
function(roff_text out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(help_of out)
  execute_process(COMMAND ${PROGRAM} ${ARGN} --help
    OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NAME} ${ARGN} --help exited ${rc}: ${err}")
  endif()
  string(STRIP "${text}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(main_help)
string(TOUPPER "${NAME}" upper)
roff_text(name_roff "${NAME}")
roff_text(summary_roff "${SUMMARY}")
roff_text(help_roff "${main_help}")
set(page ".TH ${upper} 1 \"\" \"limitscope ${VERSION}\" \"limitscope manual\"\n")
string(APPEND page ".SH NAME\n${name_roff} \\- ${summary_roff}\n")
string(APPEND page ".SH SYNOPSIS AND OPTIONS\n.nf\n${help_roff}\n.fi\n")

if(SUBCOMMANDS)
  string(APPEND page ".SH COMMANDS\n")
  # The command list: two-space-indented "name  summary" lines after "commands:".
  string(REGEX MATCHALL "\n  [a-z][a-z0-9-]+ " command_lines "${main_help}")
  foreach(line ${command_lines})
    string(STRIP "${line}" command)
    help_of(command_help ${command})
    roff_text(command_roff "${command}")
    roff_text(command_help_roff "${command_help}")
    string(APPEND page ".SS ${command_roff}\n.nf\n${command_help_roff}\n.fi\n")
  endforeach()
endif()

string(APPEND page ".SH FILES\n/usr/share/doc/limitscope/ (the guides: docs/*.md)\n")
string(APPEND page ".br\n/usr/share/limitscope/ (the default policy and alert rules)\n")
set(see_also "")
foreach(other ${SEE_ALSO})
  roff_text(other_roff "${other}")
  list(APPEND see_also "\\fB${other_roff}\\fR(1)")
endforeach()
list(JOIN see_also ", " see_also)
string(APPEND page ".SH SEE ALSO\n${see_also}\n")

get_filename_component(dir "${OUTPUT}" DIRECTORY)
string(REGEX REPLACE "\\.gz$" "" plain "${OUTPUT}")
file(WRITE "${plain}" "${page}")
# gzip -n: no name or time stamp in the header, so the same page compresses to the same bytes.
execute_process(COMMAND gzip -9 -n -f "${plain}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${plain} failed")
endif()
