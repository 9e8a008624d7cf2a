from survey.policy import refuse

print "refusing", refuse("seg-mix")
