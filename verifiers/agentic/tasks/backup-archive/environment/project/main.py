from lib import helpers
print(helpers.greet())
