import Sluice
print("sluice-bench")
