import Sluice
print("sluice-tour")
