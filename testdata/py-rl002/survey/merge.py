from survey.policy import refuse
<<<<<<< HEAD
REASON = 'a'
=======
REASON = 'b'
>>>>>>> feature
